"""One plugin object per way to be wrong; each entry point names one."""

import sys
from types import SimpleNamespace

from dspk.plugin import Backend, DeviceUnavailable, RuntimeSpec, hookimpl


def _plugin(*specs, error=None):
    @hookimpl
    def dspk_register_runtimes(register):
        if error:
            raise error
        for spec in specs:
            register(spec)

    return SimpleNamespace(dspk_register_runtimes=dspk_register_runtimes)


def no_gpu_here():
    raise DeviceUnavailable("no toy GPU in this machine")


class Abort(BaseException):
    """Not an Exception: what ``except Exception`` lets through."""


def exit_on_open():
    sys.exit(4)


class Misnamed(Backend):
    """A backend that kept the name of the example it was copied from."""

    name = "toy"

    def device(self):
        return "misnamed"

    def fingerprint(self):
        return {}

    def variants(self, op):
        return []


raising = _plugin(error=RuntimeError("registration exploded"))
duplicate = _plugin(RuntimeSpec("cpu", 5, False, "dspk_broken.plugins:no_gpu_here"))
malformed = _plugin(RuntimeSpec("Bad Name", 5, False, "dspk_broken.plugins:no_gpu_here"))
old_api = _plugin(RuntimeSpec("ancient", 5, False, "dspk_broken.plugins:no_gpu_here",
                              api_version=0))
nodevice = _plugin(RuntimeSpec("nodevice", 1000, True, "dspk_broken.plugins:no_gpu_here"))
aborting = _plugin(error=Abort("registration aborted"))
exiting_on_open = _plugin(RuntimeSpec("quitter", 500, False, "dspk_broken.plugins:exit_on_open"))
# A hook without the @hookimpl marker, which pluggy ignores.
unmarked = SimpleNamespace(dspk_register_runtimes=lambda register: None)
unloadable = _plugin(RuntimeSpec("unloadable", 3, False, "dspk_broken.no_such_module:Backend"))
misnamed = _plugin(RuntimeSpec("misnamed", 2, False, "dspk_broken.plugins:Misnamed"))
