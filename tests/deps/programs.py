#!/usr/bin/env python3
"""programs.py SOURCE_DIR BUILD_DIR — the drift check between the test suites and
scripts/deps.sh (CTest: deps_programs).

The test command (scripts/test.sh) installs the Debian packages of
`scripts/deps.sh GROUPS`; a machine that has never seen the project has those and
nothing else beyond a minimal Debian. A suite that starts a program those packages
do not bring passes on a machine that has it from earlier work and fails on the
next fresh one (haproxy and curl once did exactly that). This check finds every
program the default suites may start and fails, naming the file and line, when its
package is not installed by the test command.

How:
  1. the groups: the `scripts/deps.sh ...` line of scripts/test.sh; their packages:
     `scripts/deps.sh --list GROUPS`;
  2. what those packages bring: their closure over Depends and Pre-Depends among the
     installed packages (dpkg's status), plus the base every Debian has (Priority
     required, or Essential);
  3. the default suites: `ctest --show-only=json-v1 -LE slow` in BUILD_DIR; the files
     each runs (scripts, JavaScript, Python named on its command line; the C sources
     of a test executable, from compile_commands.json), and the repository files those
     name in turn (require('./x'), paths to scripts);
  4. every word of their code (comments left out) that names a program on the system
     PATH or in PostgreSQL's bin folder; its package (dpkg -S); a package outside (2)
     is a failure, unless the word is in IGNORED below with the reason it is not a
     program the suite starts.
It also reads the npm lock files of the test and bench folders: every package there must
run on the Node.js of Debian bookworm (18.20), the one deps.sh installs on a machine with
Debian's archive only (playwright-core 1.65 wants 20: the web suites failed so on a
clean bookworm while passing on a machine with a newer Node.js).
It also fails when a package of (1) is not installed: the test command installs them
first, so that means deps.sh failed quietly or names a package that does not exist.
Exit 0 when all is well, 1 with one line per problem otherwise.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]

# Words that name a program on some machines but are not a program a suite starts.
# Each entry says why; keep it short and honest.
IGNORED = {
    "docker": "named in messages about the docker suites, which run with `deps.sh docker` (label docker, slow)",
    "podman": "the docker suites only (label docker, slow), which install it with `deps.sh docker`",
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout


def deps_groups(src):
    """The groups scripts/test.sh asks deps.sh for."""
    text = open(os.path.join(src, "scripts/test.sh")).read()
    m = re.search(r"^\s*scripts/deps\.sh\s+([a-z ]+)$", text, re.M)
    if not m:
        sys.exit("deps_programs: scripts/test.sh has no `scripts/deps.sh GROUPS` line")
    return m.group(1).split()


def dpkg_status():
    """name -> dict(depends=[[alternatives]], provides=[...], base=bool) for installed packages."""
    out = run(["dpkg-query", "-W", "-f=${Package}\t${Status}\t${Priority}\t${Essential}\t"
               "${Depends}\t${Pre-Depends}\t${Provides}\n"])
    pkgs = {}
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 7 or not f[1].endswith("install ok installed"):
            continue
        name, _, prio, ess, dep, pre, prov = f[:7]

        def alts(field):
            groups = []
            for part in filter(None, (p.strip() for p in field.split(","))):
                groups.append([re.sub(r"[\s(:].*", "", a.strip()) for a in part.split("|")])
            return groups

        pkgs[name] = {
            "depends": alts(dep) + alts(pre),
            "provides": [re.sub(r"[\s(].*", "", p.strip()) for p in prov.split(",") if p.strip()],
            "base": prio == "required" or ess == "yes",
        }
    return pkgs


def closure(roots, pkgs):
    providers = {}
    for name, p in pkgs.items():
        for v in p["provides"]:
            providers.setdefault(v, []).append(name)
    seen, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        cands = [n] if n in pkgs else providers.get(n, [])
        for c in cands:
            if c in seen:
                continue
            seen.add(c)
            for group in pkgs[c]["depends"]:
                # any installed alternative satisfies the dependency; follow them all
                for a in group:
                    if a in pkgs or a in providers:
                        todo.append(a)
    return seen


def default_tests(build):
    out = run(["ctest", "--show-only=json-v1", "-LE", "slow"], cwd=build)
    return json.loads(out)["tests"]


def c_sources(build):
    """test executable name -> the C sources it is built from (compile_commands.json)."""
    path = os.path.join(build, "compile_commands.json")
    result = {}
    if not os.path.exists(path):
        return result
    for e in json.load(open(path)):
        m = re.search(r"CMakeFiles/([^/]+)\.dir/", e.get("output", "") or e.get("command", ""))
        if m:
            result.setdefault(m.group(1), []).append(e["file"])
    return result


REF = re.compile(r"""['"`/\s(=$]([\w.\-/{}$]*?[\w\-]+\.(?:js|mjs|sh|py))\b""")
REQUIRE = re.compile(r"""require\(\s*['"](\.{1,2}/[^'"]+)['"]\s*\)""")


def referenced_files(path, text, src):
    """Repository files that a test file names: relative requires, and paths of scripts."""
    here = os.path.dirname(path)
    found = set()
    for m in REQUIRE.finditer(text):
        for cand in (m.group(1), m.group(1) + ".js"):
            p = os.path.normpath(os.path.join(here, cand))
            if os.path.isfile(p):
                found.add(p)
    for m in REF.finditer(text):
        name = m.group(1)
        tail = re.sub(r"^.*[}$]", "", name).lstrip("/")
        if not tail:
            continue
        for base in (here, src):
            p = os.path.normpath(os.path.join(base, tail))
            if os.path.isfile(p) and p.startswith(src + os.sep):
                found.add(p)
                break
        else:
            # a bare name beside the file (the test folder's own helpers)
            p = os.path.join(here, os.path.basename(tail))
            if os.path.isfile(p):
                found.add(p)
    return found


def strip_comments(path, text):
    if path.endswith((".sh", ".py", ".cmake")):
        return "\n".join("" if l.lstrip().startswith("#") else re.sub(r"\s#\s.*$", "", l)
                         for l in text.splitlines())
    if path.endswith((".js", ".mjs", ".c", ".h")):
        text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        return "\n".join(re.sub(r"(^|\s)//.*$", "", l) for l in text.splitlines())
    return text


# Where a shell command line names a program: its first word, after an operator, after
# `command -v`, `which`, `exec`, `env` and assignments, `sudo`, `timeout N`, `setpriv ...`.
SHELL_SEP = re.compile(r"(?:^|[;&|(`{]|\$\(|\b(?:then|do|else|if|while|until|elif|!)\s)\s*")
PREFIX = re.compile(r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|command\s+-v|command|which|exec|env|sudo|nice|"
                    r"timeout\s+(?:-\S+\s+)*\S+)\s+)*")


def shell_commands(line):
    """The words of a shell line that stand where a program is named."""
    found = []
    for m in SHELL_SEP.finditer(line):
        rest = line[m.end():]
        rest = rest[PREFIX.match(rest).end():]
        if re.match(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", rest):
            continue  # an assignment alone
        w = re.match(r"[\"']?([\w./+\-]+)", rest)
        if w:
            found.append(w.group(1))
    return found


LITERAL = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`]*)`""")
CALL = re.compile(r"\b(?:spawn|spawnSync|execFile|execFileSync|execSync|execvp|execlp|execl|execv|"
                  r"posix_spawnp?|popen|system|subprocess\.\w+|Popen)\s*\(\s*\[?\s*$")


def named_programs(path, text):
    """(line number, word) for each word of a file that stands where a program is named:
    a shell file's command positions; in other languages, the string literals that a
    call runs (spawn('x', ...), execvp("x", ...), ['sh', '-c', 'x ...']), the shell
    lines inside literals (`command -v x`), and absolute paths of programs."""
    out = []
    # a shell file's own functions are not programs
    functions = set(re.findall(r"^\s*(?:function\s+)?([\w\-]+)\s*\(\)", text, re.M))
    for no, line in enumerate(text.splitlines(), 1):
        for m in re.finditer(r"(?<![\w.])(/(?:usr/)?(?:local/)?s?bin/[\w.+\-]+|"
                             r"/usr/lib/postgresql/[^/\s'\"]+/bin/[\w.+\-]+)", line):
            out.append((no, os.path.basename(m.group(1))))
        # a program given as a default: ${CC:-clang}, process.env.CC || 'cc'
        for m in re.finditer(r"\$\{\w+:-([\w.+\-]+)\}|process\.env\.\w+\s*(?:\|\||\?\?)\s*['\"]([\w.+\-]+)['\"]",
                             line):
            out.append((no, m.group(1) or m.group(2)))
        if path.endswith(".sh"):
            out += [(no, w) for w in shell_commands(line) if w not in functions]
            continue
        prev_c = False
        for m in LITERAL.finditer(line):
            lit = next(g for g in m.groups() if g is not None)
            before = line[:m.start()]
            if CALL.search(before) or prev_c:
                # the program a call runs, or the command line after '-c'
                out += [(no, w) for w in shell_commands(lit)]
            elif re.search(r"\b(command\s+-v|which)\s", lit):
                out += [(no, w) for w in shell_commands(lit)]
            prev_c = lit == "-c"
    return out


def executables():
    """program name -> its path, on the system PATH and in PostgreSQL's bin folders."""
    exe = {}
    for d in SYSTEM_PATH + sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            p = os.path.join(d, n)
            if n not in exe and os.path.isfile(p) and os.access(p, os.X_OK):
                exe[n] = p
    return exe


def owners(paths):
    """path -> Debian package (None when no package owns it)."""
    result = {p: None for p in paths}
    if not paths:
        return result
    both = {}
    for p in paths:
        for q in {p, os.path.realpath(p)}:
            both.setdefault(q, []).append(p)
            if q.startswith("/usr/"):
                both.setdefault(q[4:], []).append(p)
    r = subprocess.run(["dpkg", "-S"] + sorted(both), stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("diversion by"):
            continue
        pkg, _, path = line.partition(": ")
        for orig in both.get(path.strip(), []):
            if result[orig] is None:
                result[orig] = pkg.split(":")[0].split(",")[0].strip()
    return result


# bookworm's nodejs (18.20.4+dfsg-1~deb12u1): what `deps.sh node` installs from Debian
DEBIAN_NODE = (18, 20, 4)


def _ver(text):
    parts = [int(x) if x.isdigit() else 0 for x in re.sub(r"[^0-9.].*$", "", text).split(".")]
    return tuple((parts + [0, 0, 0])[:3])


def node_admits(engines, have=DEBIAN_NODE):
    """Does an npm `engines.node` range admit the version `have`? (>=, >, <=, <, =, ^, ~,
    x-ranges, `a - b` and `||`; what npm packages write there.)"""
    for alt in engines.split("||"):
        alt = alt.strip()
        if not alt or alt in ("*", "x"):
            return True
        m = re.fullmatch(r"(\S+)\s+-\s+(\S+)", alt)
        if m:
            if _ver(m.group(1)) <= have <= _ver(m.group(2)):
                return True
            continue
        ok = True
        for comp in re.findall(r"(>=|<=|>|<|=|\^|~)?\s*v?([0-9][0-9.xX*]*)", alt):
            op, v = comp
            want = _ver(v.replace("x", "0").replace("X", "0").replace("*", "0"))
            if op in ("^", "~", "") and re.search(r"[xX*]|^\d+$|^\d+\.\d+$", v) and op == "":
                nparts = len([p for p in v.split(".") if p.isdigit()])
                ok &= have[:nparts] == want[:nparts]
            elif op == ">=":
                ok &= have >= want
            elif op == ">":
                ok &= have > want
            elif op == "<=":
                ok &= have <= want
            elif op == "<":
                ok &= have < want
            elif op == "^":
                ok &= have >= want and have[0] == want[0]
            elif op == "~":
                ok &= have >= want and have[:2] == want[:2]
            else:
                ok &= have == want
        if ok:
            return True
    return False


def lock_problems(src):
    problems = []
    for lock in sorted(glob.glob(os.path.join(src, "tests/*/package-lock.json")) +
                       glob.glob(os.path.join(src, "bench/package-lock.json"))):
        for name, meta in json.load(open(lock)).get("packages", {}).items():
            want = (meta.get("engines") or {}).get("node") if isinstance(meta.get("engines"), dict) else None
            if want and not node_admits(want):
                problems.append(f"{os.path.relpath(lock, src)}: {name or '(the folder itself)'} "
                                f"{meta.get('version', '')} wants Node.js {want}; Debian bookworm's is "
                                f"{'.'.join(map(str, DEBIAN_NODE))}: pin a version that runs on it")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: programs.py SOURCE_DIR BUILD_DIR")
    src, build = (os.path.realpath(a) for a in sys.argv[1:])
    problems = []
    if not shutil.which("dpkg-query"):
        if os.environ.get("TESSERA_SKIP_MISSING") == "1":
            print("SKIPPED: dpkg-query is not installed (not a Debian system)")
            return 77
        print("MISSING: dpkg-query: this check reads Debian's package status "
              "(TESSERA_SKIP_MISSING=1 skips it elsewhere)")
        return 1

    groups = deps_groups(src)
    wanted = run([os.path.join(src, "scripts/deps.sh"), "--list"] + groups).split()
    pkgs = dpkg_status()
    for w in wanted:
        if w in ("nodejs", "npm"):
            continue  # deps.sh counts a node/npm from any source as present
        if w not in pkgs:
            problems.append(f"scripts/deps.sh {' '.join(groups)} asks for {w}, which is not installed "
                            f"(run scripts/deps.sh {' '.join(groups)}; a name apt does not know fails there)")
    problems += lock_problems(src)
    allowed = closure(wanted, pkgs) | {n for n, p in pkgs.items() if p["base"]}

    tests = default_tests(build)
    sources = c_sources(build)
    files = {}
    for t in tests:
        for arg in t.get("command", []):
            a = os.path.realpath(arg) if os.path.isabs(arg) else None
            if a and a.startswith(src + os.sep) and not a.startswith(build + os.sep) \
                    and os.path.isfile(a):
                files.setdefault(a, t["name"])
            elif a and a.startswith(build + os.sep) and os.path.basename(a) in sources:
                for s in sources[os.path.basename(a)]:
                    if s.startswith(src + os.sep):
                        files.setdefault(s, t["name"])
    # the test command's own steps (the build, the sanitizer pass, the fuzz targets)
    files.setdefault(os.path.join(src, "scripts/test.sh"), "scripts/test.sh")
    todo = list(files)
    # the lists themselves, and the build tree, are not code that starts programs
    skip = {os.path.join(src, "scripts/deps.sh")}
    while todo:
        f = todo.pop()
        try:
            text = open(f, errors="replace").read()
        except OSError:
            continue
        for r in referenced_files(f, text, src):
            if r not in files and r not in skip and not r.startswith(build + os.sep):
                files[r] = files[f]
                todo.append(r)

    exe = executables()
    uses = {}  # program -> (file, line number, test)
    for f, test in sorted(files.items()):
        text = strip_comments(f, open(f, errors="replace").read())
        for no, w in named_programs(f, text):
            w = os.path.basename(w)
            if w in exe and w not in uses:
                uses[w] = (os.path.relpath(f, src), no, test)

    own = owners([exe[w] for w in uses])
    checked = 0
    for w, (f, no, test) in sorted(uses.items()):
        pkg = own[exe[w]]
        if w in IGNORED:
            continue
        checked += 1
        if pkg is None:
            problems.append(f"{f}:{no} ({test}) names {w} ({exe[w]}), which no Debian package "
                            f"installed it: a fresh machine will not have it")
        elif pkg not in allowed:
            problems.append(f"{f}:{no} ({test}) names {w}, from the package {pkg}, which "
                            f"scripts/deps.sh {' '.join(groups)} does not install: add {pkg} to a list "
                            f"the test command asks for (scripts/deps.sh)")

    print(f"deps_programs: {len(tests)} default suites, {len(files)} files read, "
          f"{checked} programs named, {len(wanted)} packages asked for "
          f"({len(allowed)} with what they pull in and the base)")
    if problems:
        for p in problems:
            print("FAIL: " + p)
        return 1
    names = ", ".join(sorted(w for w in uses if w not in IGNORED))
    print(f"deps_programs: every program is installed by the test command: {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
