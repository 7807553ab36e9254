"""The graphs vLLM's model runner captures from its one ``cudagraph_capture_sizes`` list: the
one computation of vLLM's captured lists, used by the plan's capture step (so by ``resolve``,
``explain``, ``--emit``, ``diff`` and ``tune``) and by ``verify``.

vLLM has one size list (tokens) but captures two kinds of graph from it:

* mixed-batch graphs, in the mode's mixed mode (PIECEWISE for FULL_AND_PIECEWISE and
  PIECEWISE, FULL for FULL), one per size;
* with a separate decode routine (FULL_AND_PIECEWISE, FULL_DECODE_ONLY), FULL graphs for
  uniform decode batches of ``q = 1 + num_speculative_tokens`` tokens per request, only inside
  a window that depends on the model runner:

  - V1 runner (``vllm/v1/cudagraph_dispatcher.py: CudagraphDispatcher.initialize_cudagraph_keys``,
    0.20-0.33) and Model Runner V2 before 0.25 (``vllm/v1/worker/gpu/cudagraph_utils.py:
    CudaGraphManager._init_candidates``, 0.20.2-0.24.0): the sizes ``n`` with
    ``q <= n <= max_num_seqs * q``;
  - Model Runner V2 from 0.25 (``ModelCudaGraphManager._init_candidates`` in 0.27.1-0.33.0):
    ``round_up(n, q)``, kept when it is at most ``max_num_seqs * q`` and at most
    ``max_cudagraph_capture_size``.

In FULL and PIECEWISE mode decode steps replay the mixed graphs, so the plan's decode phase
lists those. Not modelled: dynamic speculative decoding (``num_speculative_tokens_per_batch_size``,
several decode widths), adaptive verification (varlen decode graphs), LoRA capture cases and
recoverSSM's cap on mixed graphs.

Standard library only: this module sits on the CLI's start-up path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cgconfig.engines.release_change import holds_in
from cgconfig.engines.vllm import releases
from cgconfig.engines.vllm.mode_resolution import round_sizes_for_spec
from cgconfig.engines.vllm.modes import CudaGraphMode, phases_to_mode
from cgconfig.fields.values import round_up

__all__ = ["CapturedLists", "captured_lists", "decode_window_source", "plan_groups"]


@dataclass(frozen=True)
class CapturedLists:
    """What vLLM captures for one resolved mode: its FULL uniform-decode graphs and its
    mixed-batch graphs (in ``mode.mixed_mode()``), each a sorted list of token counts."""

    mode: CudaGraphMode
    full_decode: tuple[int, ...]
    mixed: tuple[int, ...]

    @property
    def decode_steps(self) -> tuple[int, ...]:
        """The graphs a uniform decode step replays: its own FULL graphs when the mode has a
        separate decode routine, else the mixed ones (PIECEWISE, FULL)."""
        return self.full_decode if self.mode.separate_routine() else self.mixed

    def groups(self) -> dict[str, dict[str, list[int]]]:
        """The captured graphs by runtime mode, as vLLM's runner keys them:
        ``{"FULL": {"uniform_decode": [...], "mixed": [...]}, "PIECEWISE": {"mixed": [...]}}``
        (empty lists and modes left out)."""
        out: dict[str, dict[str, list[int]]] = {}
        if self.full_decode:
            out.setdefault("FULL", {})["uniform_decode"] = list(self.full_decode)
        mixed_mode = self.mode.mixed_mode()
        if self.mixed and mixed_mode is not CudaGraphMode.NONE:
            out.setdefault(mixed_mode.name, {})["mixed"] = list(self.mixed)
        return out


def rounds_decode_up(release: str, v2_runner: bool) -> bool:
    """Whether the runner captures FULL decode graphs at ``round_up(n, q)`` (Model Runner V2
    from 0.25) rather than at the sizes inside ``q..max_num_seqs·q``."""
    return v2_runner and holds_in(releases.V2_DECODE_ROUND_UP, release)


def decode_window_source(release: str, v2_runner: bool) -> str:
    """The upstream function that applies the FULL decode window, for decisions."""
    if v2_runner:
        name = ("ModelCudaGraphManager" if holds_in(releases.V2_DECODE_ROUND_UP, release)
                else "CudaGraphManager")
        return f"vLLM {release} v1/worker/gpu/cudagraph_utils.py {name}._init_candidates"
    return f"vLLM {release} v1/cudagraph_dispatcher.py CudagraphDispatcher.initialize_cudagraph_keys"


def captured_lists(mode: CudaGraphMode, sizes: Sequence[int], *, max_num_seqs: int,
                   tokens_per_request: int, v2_runner: bool, release: str) -> CapturedLists:
    """vLLM's captured graphs for ``mode`` and the resolved ``cudagraph_capture_sizes``
    (after the spec-decode rounding), in ``release`` with the V1 runner or Model Runner V2.

    ``max_num_seqs`` is the scheduler's; ``tokens_per_request`` is ``q`` (1 +
    num_speculative_tokens). ``max_cudagraph_capture_size`` is the list's largest size, as
    ``VllmConfig._set_cudagraph_sizes`` and the rounding leave it. An empty list captures
    nothing, whatever the mode (vLLM keeps the mode's label). Model Runner V2 of 0.21-0.24
    first rounds the sizes to multiples of ``q`` in any mode (``CudaGraphManager.__init__``);
    raises :class:`~cgconfig.engines.vllm.mode_resolution.VllmModeError` where that fails."""
    listed = sorted(set(sizes))
    if mode is CudaGraphMode.NONE or not listed:
        return CapturedLists(mode, (), ())
    q = max(1, tokens_per_request)
    if v2_runner and q > 1 and holds_in(releases.V2_MANAGER_SPEC_ROUNDING, release) \
            and not holds_in(releases.V2_DECODE_ROUND_UP, release):
        # CudaGraphManager.__init__ (0.21-0.24) rounds the runner's sizes whatever the mode.
        listed = round_sizes_for_spec(listed, listed[-1], q)
    widest = max_num_seqs * q
    full: list[int] = []
    if mode.decode_mode() is CudaGraphMode.FULL and mode.separate_routine():
        if rounds_decode_up(release, v2_runner):
            ceiling = min(widest, listed[-1])
            full = sorted({r for r in (round_up(n, q) for n in listed) if r <= ceiling})
        else:
            full = [n for n in listed if q <= n <= widest]
    mixed = listed if mode.mixed_mode() is not CudaGraphMode.NONE else []
    return CapturedLists(mode, tuple(full), tuple(mixed))


def plan_groups(config: dict[str, dict[str, object]],
                capture: dict[str, dict[str, object]]) -> dict[str, dict[str, list[int]]]:
    """A vLLM plan's captured graphs by runtime mode (the shape of :meth:`CapturedLists.groups`),
    read back from its ``config`` backends (vLLM's mode label) and ``capture`` lists."""
    mode = phases_to_mode(str(config["decode"]["backend"]),
                          str(config["prefill"]["backend"])).mode
    decode = _sizes(capture["decode"]) if mode.separate_routine() else []
    return CapturedLists(mode, tuple(decode), tuple(_sizes(capture["prefill"]))).groups()


def _sizes(phase: dict[str, object]) -> list[int]:
    sizes = phase.get("sizes")
    return [s for s in sizes if isinstance(s, int)] if isinstance(sizes, list) else []
