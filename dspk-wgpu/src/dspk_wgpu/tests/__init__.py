"""The wgpu runtime's own tests (the operations are checked by the conformance kit)."""
