#!/usr/bin/env python3
"""Fuzz smoke for the sol CLI: a few thousand generated command lines, each run under a time limit.

The commands and flags come from the binary itself (`sol --help`, `sol CMD --help`, recursively);
the values are mutated (huge, zero, negative, nan, inf, 1e-300, 2^63, empty, binary junk, long
strings), and so are the input files (hardware JSON from `sol hw show --json`, results files from
bench/results, SCALE-Sim .cfg/.csv topologies from tests/data, plus devices, FIFOs and folders
where files belong). The README's example command lines are mutated too, to reach past the
first check. A run fails on a signal, a hang (past --timeout), a sanitizer report, an exit code
the CLI does not document (0 success, 1 failure, 2 bad input: include/sol/core/error.hpp), an
error that is not one line, or an exception that is not a sol::Error ("internal error").

Every run happens in a scratch folder with HOME pointing there and no GPU visible, so no command
writes into the repository or reaches a device. The seed is fixed: the same binary gives the
same runs. Prints `fuzz: N runs, M failed` and each failing command line; exits 1 on a failure.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTED_EXIT = {0, 1, 2}
SANITIZER_MARKS = (b"AddressSanitizer", b"LeakSanitizer", b"UndefinedBehaviorSanitizer", b"runtime error:")

# ---- values -------------------------------------------------------------------------------------
NUMBERS = ["0", "-1", "1", "2", "3", "7", "31", "32", "33", "64", "100", "127", "128", "255", "256",
           "1000", "1023", "4096", "65535", "65536", "2147483647", "2147483648", "-2147483649",
           "4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
           "18446744073709551616", "1e-300", "1e300", "1e999", "-1e999", "nan", "-nan", "inf", "-inf",
           "0.5", "-0", "1.5", "2^31", "2^63", "2^64", "2^-1", "0^1", "4k", "1G", "40GiB", "1e9",
           "0x10", "010", "+5", "1_000", " 7 "]
JUNK = ["", " ", ",", ",,", "x", "abc", "--", "-", "=", "1,", ",1", "1x", "x1", "1,,2", "%s%n%x",
        "\x01\x02\xff\xfe", "\x1b[31mred", "a\nb", "\t", "é", "\u202e", "\xff" * 8, "../../x", "NaN,NaN"]


def long_strings(rng):
    return ["A" * 5000, "9" * 400, ",".join(["1"] * rng.choice([33, 1000, 20000])),
            ",".join(rng.choice(NUMBERS) for _ in range(rng.randint(2, 9))), "x" * 100000]  # one argument may hold 128 KiB


def hostile(rng):
    r = rng.random()
    if r < 0.55:
        return rng.choice(NUMBERS)
    if r < 0.85:
        return rng.choice(JUNK)
    if r < 0.95:
        return rng.choice(long_strings(rng))
    return "".join(chr(rng.randint(1, 255)) for _ in range(rng.randint(1, 40)))


NUM_RE = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def mutate_value(rng, value):
    """One numeric piece of a value replaced ("4096,4096,4096" → "4096,2^63,4096"), or all of it."""
    pieces = list(NUM_RE.finditer(value))
    if pieces and rng.random() < 0.7:
        m = rng.choice(pieces)
        return value[:m.start()] + rng.choice(NUMBERS) + value[m.end():]
    return hostile(rng)


# ---- the CLI's own description of itself --------------------------------------------------------
# "  -g,--gpu TEXT=h100 REQUIRED   help": the name, then single-spaced words (type, default,
# REQUIRED, "..."), then two spaces or more and the help (or the help on the next lines).
OPTION_RE = re.compile(r"^\s{1,8}(?:-\w,\s*)?(--[A-Za-z0-9][\w-]*)(?:,\s*-\w)?((?: \S+)*)(?:\s{2,}|$)")
POSITIONAL_RE = re.compile(r"^\s{1,8}([a-z][\w-]*)((?: \S+)*)(?:\s{2,}|$)")
TYPE_RE = re.compile(r"^([A-Z][A-Z0-9_]*(:\S*)?|\[.*|\{.*)$")
SECTION_RE = re.compile(r"^(OPTIONS|Options|POSITIONALS|Positionals|SUBCOMMANDS|Subcommands)\s*:")


def help_of(sol, path):
    p = subprocess.run([sol, *path, "--help"], capture_output=True, timeout=60, env=child_env(tempfile.gettempdir()))
    return p.stdout.decode("utf-8", "replace")


def parse_help(text):
    """(options, subcommands): options as dicts {name, type, flag, required, help}; a positional
    is an option whose name does not start with "--"."""
    options, subs, section = [], [], None
    for line in text.splitlines():
        m = SECTION_RE.match(line.strip())
        if m:
            section = m.group(1).lower()
            continue
        if not line.strip():
            continue
        if section in ("options", "positionals"):
            o = (OPTION_RE if section == "options" else POSITIONAL_RE).match(line)
            if o:
                name, words = o.group(1), o.group(2).split()
                if name in ("--help", "--help-all", "--version"):
                    continue
                kind = words[0].split("=")[0] if words else ""
                flag = section == "options" and not TYPE_RE.match(kind)
                options.append({"name": name, "type": "" if flag else kind, "flag": flag,
                                "required": "REQUIRED" in words, "help": line})
            elif options and not line.lstrip().startswith("-"):
                options[-1]["help"] += " " + line.strip()
                options[-1]["required"] |= "REQUIRED" in line
        elif section == "subcommands":
            s = re.match(r"^\s{1,8}([a-z][\w-]*)\b", line)
            if s:
                subs.append(s.group(1))
    return options, subs


def discover(sol):
    """({command path: options}, leaves): every subcommand the help lists, at every depth; the
    leaves are the paths a user runs (those with subcommands of their own only say so)."""
    tree, leaves, todo = {}, [], [()]
    while todo:
        path = todo.pop()
        options, subs = parse_help(help_of(sol, list(path)))
        tree[path] = options
        todo.extend(path + (s,) for s in subs if len(path) < 3)
        if path and not subs:
            leaves.append(path)
    return tree, sorted(leaves)


def examples_in_repo(commands):
    """Command lines the repository already holds, split into words: the README's `./sol ...`
    lines and the host tests' string literals that start with a subcommand."""
    out = []

    def add(line):
        try:
            words = shlex.split(line.split("#")[0])
        except ValueError:
            return
        if words and words[0] in commands:
            out.append(words)

    try:
        for line in open(os.path.join(ROOT, "README.md"), encoding="utf-8").read().splitlines():
            line = line.strip()
            if line.startswith("./sol ") or line.startswith("sol "):
                add(line.split(" ", 1)[1])
    except OSError:
        pass
    tests = os.path.join(ROOT, "tests", "host")
    for name in sorted(os.listdir(tests)) if os.path.isdir(tests) else []:
        if name.endswith(".cpp"):
            for literal in re.findall(r'"([a-z][^"\\]*)"', open(os.path.join(tests, name), encoding="utf-8").read()):
                add(literal)
    return out


# ---- input files ----------------------------------------------------------------------------------
def seed_files(sol):
    """Seed contents by kind: 'hw' (JSON rows), 'results' (JSON), 'cfg', 'csv' (SCALE-Sim)."""
    seeds = {"hw": [], "results": [], "cfg": [], "csv": []}
    for gpu in ("h100", "h200", "v5e"):
        p = subprocess.run([sol, "hw", "show", gpu, "--json"], capture_output=True, timeout=60,
                           env=child_env(tempfile.gettempdir()))
        if p.returncode == 0 and p.stdout.strip():
            seeds["hw"].append(p.stdout)
    results = os.path.join(ROOT, "bench", "results")
    for d, _, names in os.walk(results):
        for n in sorted(names):
            p = os.path.join(d, n)
            if n.endswith(".json") and os.path.getsize(p) < 40000:
                seeds["results"].append(open(p, "rb").read())
    for base in (os.path.join(ROOT, "tests", "data"), os.path.join(ROOT, "..", "shared", "scalesim", "inputs")):
        for d, _, names in os.walk(base):
            for n in sorted(names):
                kind = n.rsplit(".", 1)[-1]
                p = os.path.join(d, n)
                if kind in ("cfg", "csv") and os.path.getsize(p) < 40000 and len(seeds[kind]) < 12:
                    seeds[kind].append(open(p, "rb").read())
    return seeds


def mutate_json(rng, data):
    try:
        doc = json.loads(data)
    except ValueError:
        return mutate_bytes(rng, data)
    leaves = []

    def walk(node, parent, key):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, node, k)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, node, i)
        if parent is not None:
            leaves.append((parent, key))

    walk(doc, None, None)
    for _ in range(rng.randint(1, 3)):
        if not leaves:
            break
        parent, key = rng.choice(leaves)
        r = rng.random()
        if r < 0.1 and isinstance(parent, dict):
            parent.pop(key, None)
            continue
        choice = rng.choice(
            [0, -1, 1e-300, 1e300, 2**31, 2**63, 2**64, -(2**63), 1e308, 0.5, True, None, "", "../../x",
             "/abs/path", "n=x", "a,b", "x" * 300, [], {}, "\x01\xff", "1e999"])
        try:
            parent[key] = choice
        except (TypeError, IndexError):
            pass
    text = json.dumps(doc).encode()
    if rng.random() < 0.15:  # numbers nlohmann cannot hold
        text = re.sub(rb"(?<![\w.])(\d+(?:\.\d+)?)(?![\w.])", lambda m: b"1e999" if rng.random() < 0.05 else m.group(1),
                      text)
    return text


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if not data or r < 0.2:
            data += bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 20)))
        elif r < 0.4:
            del data[rng.randrange(len(data)):]
        elif r < 0.7:
            data[rng.randrange(len(data))] = rng.randint(0, 255)
        else:
            i = rng.randrange(len(data))
            data[i:i] = rng.choice(NUMBERS).encode() + rng.choice([b",", b"\n", b" ", b""])
    return bytes(data)


def mutate_text_numbers(rng, data):
    """A .cfg or .csv with some of its numbers replaced by hostile ones."""
    text = data.decode("utf-8", "replace")
    pieces = list(NUM_RE.finditer(text))
    for m in sorted(rng.sample(pieces, min(len(pieces), rng.randint(1, 3))), key=lambda m: -m.start()):
        text = text[:m.start()] + rng.choice(NUMBERS) + text[m.end():]
    return text.encode()


class Scratch:
    """One worker's folder: inputs are written here, and every command runs in it."""

    def __init__(self, base, seeds):
        # Deep, so that a "../../x" a command resolves against it still lands inside `base`.
        self.dir = os.path.join(base, "a", "b", "c")
        os.makedirs(self.dir)
        self.seeds = seeds
        self.n = 0
        self.fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(self.fifo)
        os.makedirs(os.path.join(self.dir, "a_folder"))
        with open(os.path.join(self.dir, "a_file"), "w") as f:
            f.write("x\n")
        self.sparse = os.path.join(self.dir, "huge.json")
        with open(self.sparse, "wb") as f:
            f.truncate(200 << 20)

    def write(self, name, data):
        self.n += 1
        p = os.path.join(self.dir, f"in{self.n}_{name}")
        with open(p, "wb") as f:
            f.write(data)
        return p

    def special(self, rng):
        return rng.choice(["/dev/zero", "/dev/urandom", "/dev/null", self.fifo, os.path.join(self.dir, "a_folder"),
                           os.path.join(self.dir, "missing.json"), self.write("empty", b""), self.sparse])

    def input_file(self, rng, kind):
        if rng.random() < 0.15 or not self.seeds.get(kind):
            return self.special(rng)
        data = rng.choice(self.seeds[kind])
        if kind in ("hw", "results"):
            data = mutate_json(rng, data) if rng.random() < 0.8 else mutate_bytes(rng, data)
        else:
            data = mutate_text_numbers(rng, data) if rng.random() < 0.7 else mutate_bytes(rng, data)
        return self.write(kind + "." + ("json" if kind in ("hw", "results") else kind), data)

    def results_folder(self, rng):
        self.n += 1
        d = os.path.join(self.dir, f"results{self.n}")
        os.makedirs(d)
        for i in range(rng.randint(1, 3)):
            src = self.input_file(rng, "results")
            if os.path.isfile(src) and os.path.getsize(src) < (1 << 20):
                shutil.copy(src, os.path.join(d, f"r{i}.json"))
        return d

    def output(self, rng):
        # Where a command may write: inside the scratch folder, or onto things that are not folders.
        return rng.choice(["out1", "out2/sub", "a_file", "a_folder", "/dev/null", "", "o.svg", "o.md"])


def file_kind(option):
    """What an option reads, from its name and help text: None if it is not a path."""
    text = (option["name"] + " " + option["help"]).lower()
    if any(w in option["name"] for w in ("out", "svg", "html", "readme", "save")):
        return "output"
    if "hw-file" in text or "hardware" in text and "file" in text:
        return "hw"
    if "topology" in text or ".csv" in text:
        return "csv"
    if ".cfg" in text or "config" in text and "file" in text:
        return "cfg"
    if "result" in text and ("folder" in text or "dir" in text):
        return "results_folder"
    if "result" in text or "against" in text:
        return "results"
    if ":file" in option["type"].lower() or " file" in text:
        return "hw"
    return None


# ---- one run ----------------------------------------------------------------------------------
def child_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOL_")}
    env.update(HOME=home, CUDA_VISIBLE_DEVICES="", LC_ALL="C.UTF-8")
    return env


def words_of(rng, option, scratch, examples, mutate=True):
    """The argument words for one option: [--flag], [--name, value], or [value] for a positional.
    Unless `mutate`, the value is a plausible one."""
    if option["flag"]:
        return [option["name"]]
    if not option["name"].startswith("--"):
        listed = [w.strip() for w in option["help"].split("  ")[-1].split("|")]
        if len(listed) > 1 and (not mutate or rng.random() < 0.85):
            return [rng.choice(listed)]
        return [option_value(rng, option, scratch, examples, mutate)]
    return [option["name"], option_value(rng, option, scratch, examples, mutate)]


def plausible(rng, option, examples):
    """A value the option is likely to accept: one seen in the repository's command lines, else
    one of its type."""
    seen = examples.get(option["name"])
    if seen:
        return rng.choice(seen)
    choices = re.search(r"\{([^}]*)\}", option["type"])
    if choices:
        return rng.choice(choices.group(1).split(","))
    if option["type"] in ("INT", "UINT", "SIZE"):
        return rng.choice(["1", "2", "8", "32", "64", "128", "256", "1000", "4096"])
    if option["type"] == "FLOAT":
        return rng.choice(["0.5", "1", "10", "100"])
    return rng.choice(["h100", "bf16", "1", "64"])


def option_value(rng, option, scratch, examples, mutate=True):
    kind = file_kind(option)
    if kind == "output":
        return scratch.output(rng)
    if kind == "results_folder":
        return scratch.results_folder(rng) if rng.random() < 0.85 else scratch.special(rng)
    if kind:
        return scratch.input_file(rng, kind)
    if not mutate:
        return plausible(rng, option, examples)
    return mutate_value(rng, plausible(rng, option, examples)) if rng.random() < 0.5 else hostile(rng)


def generate(rng, tree, leaves, examples, readme, scratch):
    """One argument vector (a list of str): a repository command line with a value or two
    mutated, or a command from the help with plausible values and one or two hostile ones."""
    if readme and rng.random() < 0.5:
        words = list(rng.choice(readme))
        for _ in range(rng.randint(1, 3)):
            values = [i for i, w in enumerate(words) if not w.startswith("--") and i > 0 and words[i - 1].startswith("--")]
            r = rng.random()
            if values and r < 0.6:
                i = rng.choice(values)
                words[i] = mutate_value(rng, words[i])
            elif values and r < 0.8:
                i = rng.choice(values)
                del words[i - 1:i + 1]
            else:
                path = tuple(w for w in words if not w.startswith("-"))[:2]
                opts = tree.get(path) or tree.get(path[:1]) or []
                opts = [o for o in opts if o["name"].startswith("--")]
                if opts:
                    words += words_of(rng, rng.choice(opts), scratch, examples)
        return words
    path = rng.choice(leaves)
    chosen = [o for o in tree[()] if rng.random() < 0.1]  # global options go before the subcommand
    n_global = len(chosen)
    chosen += [o for o in tree[path] if not o["name"].startswith("--") and (o["required"] or rng.random() < 0.8)]
    chosen += [o for o in tree[path] if o["name"].startswith("--") and (o["required"] or rng.random() < 0.3)]
    hostile_ones = set(rng.sample(range(len(chosen)), min(len(chosen), rng.randint(1, 2))))
    words = [words_of(rng, o, scratch, examples, i in hostile_ones) for i, o in enumerate(chosen)]
    return [w for ws in words[:n_global] for w in ws] + list(path) + [w for ws in words[n_global:] for w in ws]


def run(sol, args, scratch, timeout):
    """(failure reason or None, exit code, stderr)."""
    argv = [os.fsencode(sol)] + [a.encode("utf-8", "surrogateescape") for a in args]
    p = subprocess.Popen(argv, cwd=scratch.dir, env=child_env(scratch.dir), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return f"hang (no exit within {timeout:g} s)", None, b""
    rc = p.returncode
    if any(m in err for m in SANITIZER_MARKS):
        return "sanitizer report", rc, err
    if rc < 0:
        return f"signal {-rc} ({signal.Signals(-rc).name})", rc, err
    if rc not in DOCUMENTED_EXIT:
        return f"exit code {rc}", rc, err
    if rc != 0:
        lines = err.decode("utf-8", "replace").rstrip("\n").split("\n")
        if len(lines) != 1 or not lines[0].startswith("sol: "):
            return f"error of {len(lines)} lines", rc, err
        if "internal error" in lines[0]:
            return "an exception that is not a sol::Error", rc, err
    return None, rc, err


def shell_line(args):
    return "sol " + " ".join(shlex.quote(a) if a.isprintable() else repr(a) for a in args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sol", default=os.path.join(ROOT, "build-host", "sol"), help="the sol binary to fuzz")
    ap.add_argument("--runs", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds one run may take")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", help="folder to copy failing runs' scratch folders to")
    a = ap.parse_args()
    sol = os.path.abspath(a.sol)
    if not os.access(sol, os.X_OK):
        sys.exit(f"fuzz: no sol binary at {sol} (build it, or pass --sol)")

    started = time.time()
    tree, leaves = discover(sol)
    readme = examples_in_repo({p[0] for p in leaves})
    examples = {}
    for words in readme:
        for flag, value in zip(words, words[1:]):
            if flag.startswith("--") and not value.startswith("--"):
                examples.setdefault(flag, []).append(value)
    seeds = seed_files(sol)
    rng = random.Random(a.seed)
    base = tempfile.mkdtemp(prefix="sol-fuzz-")
    scratches = [Scratch(os.path.join(base, f"w{i}"), seeds) for i in range(a.jobs)]
    # Generate every argument vector up front, from one seeded generator, so the set is reproducible.
    plan = []
    for i in range(a.runs):
        s = scratches[i % a.jobs]
        plan.append((s, generate(rng, tree, leaves, examples, readme, s)))

    failures, exits, lock = [], {}, threading.Lock()
    pool_scratch = {id(s): threading.Lock() for s in scratches}

    def one(item):
        s, args = item
        with pool_scratch[id(s)]:
            reason, rc, err = run(sol, args, s, a.timeout)
        with lock:
            exits[rc] = exits.get(rc, 0) + 1
            if reason:
                failures.append((reason, args, err))

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        list(ex.map(one, plan))

    for reason, args, err in failures[:100]:
        first = err.decode("utf-8", "replace").strip().split("\n")
        print(f"FAIL [{reason}] {shell_line(args)}")
        if first and first[0]:
            print("     " + first[0][:200] + (f"  (+{len(first) - 1} lines)" if len(first) > 1 else ""))
    if a.keep and failures:
        shutil.copytree(base, a.keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("fifo", "huge.json"))
    shutil.rmtree(base, ignore_errors=True)
    commands = len(leaves)
    codes = ", ".join(f"{n} × exit {rc}" for rc, n in sorted(exits.items(), key=lambda e: str(e[0])))
    print(f"fuzz: {a.runs} runs, {len(failures)} failed ({commands} commands, seed {a.seed}, "
          f"{time.time() - started:.0f} s; {codes})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
