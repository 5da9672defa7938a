"""The hooks a dspk runtime plugin implements.

A plugin is a module named by an entry point in the ``dspk.runtimes`` group,
for example in its ``pyproject.toml``::

    [project.entry-points."dspk.runtimes"]
    toy = "dspk_toy.plugin"

The module is imported when dspk first looks for runtimes, so it must be
cheap: it imports :mod:`dspk.plugin` and nothing heavy. Its hook
implementations are marked with :data:`dspk.plugin.hookimpl`.
"""

import pluggy

hookspec = pluggy.HookspecMarker("dspk")


# -------------------------------------------------------------------------
# Discovery: called once per process, when dspk first needs its runtimes.
# -------------------------------------------------------------------------


@hookspec
def dspk_register_runtimes(register):
    """Declare the runtimes this plugin provides.

    Called once per process, the first time dspk lists its runtimes. Each
    plugin's implementation is called on its own, so that one that raises is
    reported without hiding the others. The order of calls does not matter:
    runtimes are ranked by their declared priority, then by name. The
    return value is ignored.

    Parameters
    ----------
    register : callable
        Call ``register(spec)`` with a :class:`dspk.plugin.RuntimeSpec` for
        every runtime, any number of times. The spec's ``load`` target is
        imported only when the runtime is first used.
    """
