"""How many threads the cpu runtime runs on."""

import os


def threads() -> int:
    """Worker threads: ``DSPK_NUM_THREADS``, else the cores this process may run on.

    Examples
    --------
    >>> threads() >= 1
    True
    """
    text = os.environ.get("DSPK_NUM_THREADS")
    if text:
        if not text.isdigit() or int(text) < 1:
            raise ValueError(f"DSPK_NUM_THREADS={text!r} is not a positive integer")
        return int(text)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
