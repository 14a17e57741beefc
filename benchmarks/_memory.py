"""Peak resident memory of one process, above a baseline.

On Linux the kernel's high-water mark (``VmHWM``) can be reset by writing
``5`` to ``/proc/self/clear_refs``: the meter then records the current RSS as
the baseline, resets the mark, and later reads it -- exact, with no sampling.
Elsewhere (or when the reset is refused) a thread samples the RSS with psutil
every millisecond, which can miss a short spike.

The module-level :func:`start` / :func:`stop` pair is what the cluster
benchmark runs on every worker through ``Client.run``.
"""

from __future__ import annotations

import ctypes
import gc
import re
import threading
import time

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def _status_kib(field: str) -> int | None:
    try:
        with open(_STATUS) as status:
            match = re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE)
    except OSError:
        return None
    return int(match.group(1)) if match else None


def _rss_bytes() -> int:
    kib = _status_kib("VmRSS")
    if kib is not None:
        return kib * 1024
    import psutil

    return psutil.Process().memory_info().rss


def _release_free_heap() -> None:
    """Give freed heap pages back to the OS (glibc), so that the baseline holds live data only.

    Without this, memory freed after the setup (generation temporaries) stays
    resident, and a method reusing it would show no growth above the baseline.
    """
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def settled_rss() -> int:
    """This process's resident bytes of live data: after a garbage collection and
    :func:`_release_free_heap`, so that freed temporaries are not counted."""
    gc.collect()
    _release_free_heap()
    return _rss_bytes()


def _reset_high_water_mark() -> bool:
    try:
        with open(_CLEAR_REFS, "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return _status_kib("VmHWM") is not None


class PeakMeter:
    """Peak RSS of this process between :meth:`start` and :meth:`stop`, above the start."""

    def __init__(self) -> None:
        self.baseline = 0
        self.method = ""
        self._peak = 0
        self._sampler: threading.Thread | None = None
        self._stopping = threading.Event()

    def start(self) -> None:
        self.baseline = settled_rss()
        if _reset_high_water_mark():
            self.method = "VmHWM"
            return
        self.method = "psutil sampling"
        self._peak = self.baseline
        self._stopping.clear()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._stopping.is_set():
            self._peak = max(self._peak, _rss_bytes())
            time.sleep(0.001)

    def stop(self) -> int:
        """Peak bytes above the baseline since :meth:`start`."""
        if self._sampler is None:
            peak = (_status_kib("VmHWM") or 0) * 1024
        else:
            self._stopping.set()
            self._sampler.join()
            self._sampler = None
            peak = max(self._peak, _rss_bytes())
        return max(0, peak - self.baseline)


_meter = PeakMeter()


def start() -> None:
    """Start this process's module-level meter (for ``Client.run`` on workers)."""
    _meter.start()


def stop() -> dict[str, int | str]:
    """Stop the module-level meter: ``{"peak": bytes above baseline, ...}``."""
    peak = _meter.stop()
    return {"peak": peak, "baseline": _meter.baseline, "method": _meter.method}
