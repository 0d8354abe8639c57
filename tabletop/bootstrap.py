"""Set up the project on a fresh machine before Django is imported.

``manage.py`` calls ``ensure_environment()`` first. It finds a Python of 3.12 or newer (the
one running, the project's ``.venv``, pyenv's versions, then the usual names on PATH and in
/usr/bin and /usr/local/bin), creates ``.venv`` with it, installs the dependencies listed in
``pyproject.toml`` (with the ``dev`` extras for the test commands) and re-runs the same
command inside the virtual environment. A stamp in ``.venv`` records what was installed, so a
change to ``pyproject.toml`` reinstalls and an unchanged one costs nothing.

Set ``TABLETOP_NO_BOOTSTRAP=1`` to manage the environment yourself (containers, packagers).

This module runs under whatever ``python3`` started it, so it sticks to old, plain syntax.
"""

import glob
import hashlib
import os
import re
import subprocess
import sys

MINIMUM = (3, 12)
PREFERRED = (3, 13)
BASE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(BASE_DIR, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
STAMP = os.path.join(VENV, ".tabletop-installed")
# Commands that need the test and lint tools as well as the app's own packages.
DEV_COMMANDS = ("runtests", "test", "lint")


def fail(message):
    sys.stderr.write("tabletop: " + message + "\n")
    sys.exit(2)


def python_version(executable):
    """(major, minor) of an interpreter, or None when it does not run."""
    try:
        out = subprocess.check_output(
            [executable, "-c", "import sys; print('%d %d' % sys.version_info[:2])"],
            stderr=subprocess.DEVNULL,
            timeout=20,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    major, minor = out.decode().split()
    return int(major), int(minor)


def candidates():
    """Interpreters to try, best first: never relying on PATH alone."""
    yield sys.executable
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = glob.glob(os.path.join(pyenv_root, "versions", "*", "bin", "python3"))

    def numeric(path):
        name = os.path.basename(os.path.dirname(os.path.dirname(path)))
        return tuple(int(part) for part in re.findall(r"\d+", name)[:3])

    for path in sorted(found, key=numeric, reverse=True):
        yield path
    for minor in range(20, MINIMUM[1] - 1, -1):
        name = "python3.%d" % minor
        for folder in ["/usr/local/bin", "/usr/bin", "/opt/homebrew/bin"] + os.environ.get("PATH", "").split(
            os.pathsep
        ):
            yield os.path.join(folder, name)
    yield "/usr/bin/python3"


def find_python():
    best = None
    seen = set()
    for path in candidates():
        if not path or path in seen or not os.access(path, os.X_OK):
            continue
        seen.add(path)
        version = python_version(path)
        if version is None or version < MINIMUM:
            continue
        if version[:2] == PREFERRED:
            return path
        if best is None:
            best = path
    if best is None:
        fail(
            "Tabletop needs Python %d.%d or newer and found none (looked at the running Python, "
            "pyenv's versions and python3.x in /usr/bin, /usr/local/bin and on PATH). "
            "Install Python 3.13, for example with pyenv, and run the command again." % MINIMUM
        )
    return best


def wanted_packages(dev):
    import tomllib  # the interpreter running this part is 3.12 or newer

    with open(os.path.join(BASE_DIR, "pyproject.toml"), "rb") as handle:
        project = tomllib.load(handle)["project"]
    packages = list(project["dependencies"])
    if dev:
        packages += project["optional-dependencies"]["dev"]
    return packages


def stamp_for(packages):
    return hashlib.sha256("\n".join(sorted(packages)).encode()).hexdigest()


def installed_stamp():
    try:
        with open(STAMP) as handle:
            return handle.read().strip().splitlines()
    except OSError:
        return []


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def ensure_environment():
    if os.environ.get("TABLETOP_NO_BOOTSTRAP"):
        return
    dev = len(sys.argv) > 1 and sys.argv[1] in DEV_COMMANDS
    if not in_venv():
        if sys.version_info[:2] < MINIMUM or not os.path.exists(VENV_PYTHON):
            python = find_python() if not os.path.exists(VENV_PYTHON) else VENV_PYTHON
            if python != VENV_PYTHON and sys.executable != python:
                # Continue the set-up under the newer Python (tomllib, venv of the right version).
                os.execv(python, [python] + sys.argv)
        if os.path.exists(VENV_PYTHON) and (python_version(VENV_PYTHON) or (0, 0)) < MINIMUM:
            sys.stderr.write("tabletop: .venv holds an old Python; making a new one.\n")
            import shutil

            shutil.rmtree(VENV)
        if not os.path.exists(VENV_PYTHON):
            sys.stderr.write("tabletop: creating .venv with Python %d.%d\n" % sys.version_info[:2])
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
        os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
    packages = wanted_packages(dev)
    stamp = stamp_for(packages)
    stamps = installed_stamp()
    if stamp in stamps or (not dev and stamp_for(wanted_packages(False)) in stamps):
        return
    # A full install also satisfies the plain one, so both stamps are kept.
    sys.stderr.write("tabletop: installing packages into .venv (once per change of pyproject.toml)\n")
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet"] + packages)
    keep = [stamp]
    if dev:
        keep.append(stamp_for(wanted_packages(False)))
    with open(STAMP, "w") as handle:
        handle.write("\n".join(keep) + "\n")
