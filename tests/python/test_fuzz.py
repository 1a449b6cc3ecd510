"""Random arguments, right and wrong, to every model function: each call returns or raises sol.Error
with a one-line message — never a binding's TypeError, an OverflowError or a silently truncated
number (the Python counterpart of scripts/fuzz-smoke.py). Deterministic: a fixed seed."""
import inspect
import math
import random

import sol

VALUES = [0, 1, -1, 2, 3, 7, 64, 128, 1000, 4096, 2**31, 2**62, 2**63, -2**40, 0.0, -0.5, 4096.5, 1e300,
          math.nan, math.inf, -math.inf, "", "h200", "bf16", "fp8", "x", "1e9", "nan", "-1", None, True, False,
          [], [1, 2], (4, 4, 4), {}, object()]

FUNCTIONS = {name: getattr(sol.model, name) for name in (
    "attention", "banks", "checkpoint", "coalescing", "divergence", "elementwise", "layernorm", "matmul",
    "occupancy", "rmsnorm", "shapes", "shapes_sweep", "softmax", "systolic")}
FUNCTIONS["hw.get"] = sol.hw.get
FUNCTIONS["roofline"] = lambda flops, bytes, gpu="h100", dtype="bf16", unit="", name="": sol.roofline(
    flops, bytes, gpu=gpu, dtype=dtype, unit=unit, name=name, quiet=True)


def call_with_random_arguments(rng, f):
    """Each argument is, with probability 0.8, a plausible one (its default, else a size), else any of
    VALUES: mostly one or two wrong arguments in a call, as a user's mistakes come."""
    params = [p for p in inspect.signature(f).parameters.values()
              if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    kwargs = {}
    for p in params:
        if rng.random() < 0.2:
            kwargs[p.name] = rng.choice(VALUES)
        elif p.default is inspect.Parameter.empty:
            kwargs[p.name] = rng.choice([1, 7, 64, 4096])
    result = f(**kwargs)
    if isinstance(result, sol.model.Op):
        result = result.roofline()
    return result


def test_random_arguments_give_results_or_one_line_errors():
    rng = random.Random(20261206)
    names = sorted(FUNCTIONS)
    errors = returned = 0
    for _ in range(3000):
        name = rng.choice(names)
        try:
            call_with_random_arguments(rng, FUNCTIONS[name])
            returned += 1
        except sol.Error as e:
            message = str(e)
            assert message and "\n" not in message, f"{name}: {message!r}"
            errors += 1
    assert errors > 0 and returned > 0  # both paths were exercised
