"""Benchmark: CraftScript's cost per op against the same body calls made directly, and parse time.

Run: ``.venv/bin/python bench/bench_craftscript.py``. Three figures, each against a baseline measured in the
same run, each printed as a ``TARGET`` line (``bench/_targets.py``):

1. 200 ``block_info`` reads through the interpreter (parse excluded) against the same ``body.block_at``
   calls made directly in a Python loop (both include loading the scenario): the ratio;
2. 50 ``dig`` + ``place`` pairs through the interpreter (capability leaves: guards, acceptance probes, the
   auto-scan of safety invariant 5, the settle wait) against ``body.dig`` / ``body.place`` handles polled
   directly: the ratio, wall ms per op beside it;
3. the parse time of a 1,000-line script (24,000 tokens): the speed-up over lark's stock two-pass
   configuration on the same grammar (contextual lexer, ``propagate_positions``, a parse tree, then the same
   AST builder as a Transformer), which is how the parser worked before; and the whole parse against lark's
   own basic lexer merely tokenizing the same text. Milliseconds are printed beside both.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from _targets import Direction, report
from lark import Lark

from craftbt.capabilities.default import default_registry
from craftbt.craftscript.interp import Limits
from craftbt.craftscript.parser import GRAMMAR, _Build, parse
from craftbt.craftscript.runner import run_inline
from craftbt.world.body import ActionStatus, BlockPos, Face
from craftbt.world.scenarios.loader import load_scenario
from craftbt.world.sim.body import SimBody

FLAT = "world/scenarios/flat_empty.yaml"
READS = 200
PAIRS = 50
#: targets: what a read or a dig/place may cost through the interpreter, relative to the body call itself;
#: a dig/place pays for a 125-block auto-scan (invariant 5) and a capability leaf each
READ_RATIO = 2.0
WORLD_RATIO = 8.0
#: parse targets are ratios, so a busy machine moves both sides: at least twice as fast as the two-pass
#: configuration, and a whole parse (tokens, LALR, AST) within 3 times what lark's own lexer alone needs
#: just to tokenize the text
PARSE_SPEEDUP = 2.0
PARSE_VS_LEX = 3.0


def _median_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _wait(body: SimBody, handle: object) -> None:
    while handle.status() is ActionStatus.RUNNING:  # type: ignore[attr-defined]
        body.advance(1)


def main() -> None:
    registry = default_registry()
    reads = parse(f"repeat(i: 0..{READS - 1}) {{ block_info(i - 100, 63, 0); }}")

    def script_reads() -> None:
        out = run_inline(reads, load_scenario(FLAT, 0), registry, limits=Limits(max_ops=100_000))
        assert out.ok

    def direct_reads() -> None:
        body = load_scenario(FLAT, 0)
        for i in range(READS):
            body.block_at(BlockPos(i - 100, 63, 0))

    s_ms, d_ms = _median_ms(script_reads), _median_ms(direct_reads)
    report("craftscript reads vs direct body reads", s_ms / d_ms, "x", READ_RATIO, Direction.AT_MOST,
           absolute=f"script {s_ms / READS * 1000:.1f} us/op, direct {d_ms / READS * 1000:.1f} us/op, "
                    "scenario load included in both")

    world = parse(f'repeat(i: 0..{PAIRS - 1}) {{ dig(2, 63, 0); place("dirt", 2, 63, 0); }}')

    def script_world() -> None:
        body = load_scenario(FLAT, 0)
        body.world.player.inventory.add("dirt", PAIRS)
        out = run_inline(world, body, registry, limits=Limits(max_ops=100_000))
        assert out.ok, out.error

    def direct_world() -> None:
        body = load_scenario(FLAT, 0)
        body.world.player.inventory.add("dirt", PAIRS)
        for _ in range(PAIRS):
            _wait(body, body.dig(BlockPos(2, 63, 0)))
            body.advance(1)
            _wait(body, body.place("dirt", BlockPos(2, 62, 0), Face.UP))

    s_ms, d_ms = _median_ms(script_world, 5), _median_ms(direct_world, 5)
    ops = PAIRS * 2
    report("craftscript dig+place vs direct body calls", s_ms / d_ms, "x", WORLD_RATIO, Direction.AT_MOST,
           absolute=f"script {s_ms / ops:.2f} ms/op, direct {d_ms / ops:.2f} ms/op")

    lines = [f"let v{i} = {i} * 2 + 1; if (v{i} > 3) {{ log(\"x\", v{i}); }}" for i in range(1000)]
    text = "\n".join(lines)
    parse("log(1);")  # build the parser once, outside the timing
    stock = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True,
                 maybe_placeholders=True)

    def two_pass() -> object:
        return _Build().transform(stock.parse(text))

    assert repr(two_pass()) == repr(parse(text)), "the baseline must build the same AST"
    tokenizer = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", lexer="basic")
    p_ms, b_ms = _median_ms(lambda: parse(text), 7), _median_ms(two_pass, 7)
    l_ms = _median_ms(lambda: list(tokenizer.lex(text)), 7)
    report("craftscript parse speed-up over lark's stock two-pass", b_ms / p_ms, "x", PARSE_SPEEDUP,
           Direction.AT_LEAST, absolute=f"{p_ms:.0f} ms vs {b_ms:.0f} ms for 1,000 lines (24,000 tokens)")
    report("craftscript parse vs lark's tokenizer alone", p_ms / l_ms, "x", PARSE_VS_LEX, Direction.AT_MOST,
           absolute=f"parse {p_ms:.0f} ms, lark's basic lexer {l_ms:.0f} ms on the same text")


if __name__ == "__main__":
    main()
