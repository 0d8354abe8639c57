"""Set up the project on a fresh machine before Django is imported.

``manage.py`` calls ``ensure_environment()`` first. It finds a Python of 3.12 or newer (the
one running, the project's ``.venv``, pyenv's versions, then the usual names on PATH and in
/usr/bin and /usr/local/bin), creates ``.venv`` with it, installs the lock file
``requirements/app.txt`` (``requirements/dev.txt`` for the test and lint commands) with
``pip install --require-hashes`` and re-runs the same command inside the virtual environment.
A stamp in the environment records the hash of each lock installed, so an edited lock
reinstalls and an unchanged one costs nothing. ``./manage.py lock`` writes the locks from
``pyproject.toml``.

A virtual environment that is already active (``VIRTUAL_ENV``, or a running Python whose
``sys.prefix`` is a venv) and is not the project's ``.venv`` is used as it is: the lock goes
into it and the command runs there, and no ``.venv`` is made.

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
STAMP_NAME = ".tabletop-installed"
APP_LOCK = os.path.join(BASE_DIR, "requirements", "app.txt")
DEV_LOCK = os.path.join(BASE_DIR, "requirements", "dev.txt")
# Commands that need the test, lint and lock tools as well as the app's own packages.
DEV_COMMANDS = ("runtests", "test", "lint", "lock")


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


def lock_stamp(lock):
    """Hash of a lock file's content: what the stamp records for it."""
    with open(lock, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def installed_stamp(stamp):
    try:
        with open(stamp) as handle:
            return handle.read().strip().splitlines()
    except OSError:
        return []


def same_path(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


def in_venv():
    return same_path(sys.prefix, VENV)


def active_environment():
    """The virtual environment the user activated, or None when it is none or the project's own."""
    prefix = os.environ.get("VIRTUAL_ENV")
    if not prefix and sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        prefix = sys.prefix
    if not prefix or same_path(prefix, VENV):
        return None
    return prefix


def install(dev, environment, where):
    """Install the lock into the environment running this, unless its stamp says it is there."""
    lock = DEV_LOCK if dev else APP_LOCK
    stamp_path = os.path.join(environment, STAMP_NAME)
    stamps = installed_stamp(stamp_path)
    if lock_stamp(lock) in stamps:
        return
    sys.stderr.write(
        "tabletop: installing %s into %s (once per change of the lock)\n"
        % (os.path.relpath(lock, BASE_DIR), where)
    )
    # --require-hashes: only the pinned versions, and only files whose hash the lock names. The
    # venv's own pip is kept as it is, so nothing unpinned is fetched.
    subprocess.check_call(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--require-hashes",
            "-r",
            lock,
        ]
    )
    keep = [lock_stamp(lock)]
    if dev:
        # ./manage.py lock resolves app.txt within dev.txt's pins, so the dev lock holds the app's.
        keep.append(lock_stamp(APP_LOCK))
    with open(stamp_path, "w") as handle:
        handle.write("\n".join(keep) + "\n")


def use_active_environment(environment, dev):
    python = os.path.join(environment, "bin", "python")
    if not os.path.exists(python):
        fail(
            "VIRTUAL_ENV is %s, which holds no bin/python. Deactivate it (or unset VIRTUAL_ENV) to "
            "use the project's .venv, or activate a working one." % environment
        )
    if not same_path(sys.prefix, environment):
        # Started by another python3 while the environment is active: continue in the environment.
        os.execv(python, [python] + sys.argv)
    if sys.version_info[:2] < MINIMUM:
        fail(
            "the active virtual environment %s has Python %d.%d and Tabletop needs %d.%d or newer. "
            "Deactivate it (the set-up then makes .venv with a newer Python it finds) or activate "
            "one made with Python 3.12+." % ((environment,) + tuple(sys.version_info[:2]) + MINIMUM)
        )
    install(dev, environment, "the active virtual environment " + environment)


def ensure_environment():
    if os.environ.get("TABLETOP_NO_BOOTSTRAP"):
        return
    dev = len(sys.argv) > 1 and sys.argv[1] in DEV_COMMANDS
    environment = active_environment()
    if environment is not None:
        use_active_environment(environment, dev)
        return
    if not in_venv():
        if sys.version_info[:2] < MINIMUM or not os.path.exists(VENV_PYTHON):
            python = find_python() if not os.path.exists(VENV_PYTHON) else VENV_PYTHON
            if python != VENV_PYTHON and sys.executable != python:
                # Continue the set-up under the newer Python, so .venv gets that version.
                os.execv(python, [python] + sys.argv)
        if os.path.exists(VENV_PYTHON) and (python_version(VENV_PYTHON) or (0, 0)) < MINIMUM:
            sys.stderr.write("tabletop: .venv holds an old Python; making a new one.\n")
            import shutil

            shutil.rmtree(VENV)
        if not os.path.exists(VENV_PYTHON):
            sys.stderr.write("tabletop: creating .venv with Python %d.%d\n" % sys.version_info[:2])
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
        os.execv(VENV_PYTHON, [VENV_PYTHON] + sys.argv)
    install(dev, VENV, ".venv")
