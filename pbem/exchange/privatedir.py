"""The cache folder's files (contentcache.py, fastschema.py): read only if they are this user's own.

A cache file is data pbem trusts (the checks a file passed) or byte code it runs (a compiled
schema), so it is read only from this user's folders that no one else may write, and only if it is
this user's regular file, that no one else may write, with no other name (a hard link would show
the owner and mode of a file of the user's holding bytes someone else chose). Each folder is
opened without following a link and checked on the opened descriptor, and each file is opened
within the folder's descriptor: a folder or file swapped for a link between a check and its use
is never followed. This needs ``dir_fd`` and ``O_NOFOLLOW`` (POSIX); where they are missing there is
no disk cache. Folders are made mode 0700, whatever the umask. A file is written whole under a
temporary name and renamed. The folder is kept under ``DISK_BYTES`` (the least recently used files
go first), and temporary files a killed process left are removed.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

OFF_ENV = "PBEM_NO_CACHE"  # set: no cache folder at all (neither read nor written)
SUPPORTED = (os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
             and hasattr(os, "O_DIRECTORY") and hasattr(os, "getuid") and os.scandir in os.supports_fd)
STALE_TMP_SECONDS = 3600  # a temporary file this old was left by a process that was killed


def cache_dir() -> Path:
    """``$PBEM_HOME/cache``, else ``$XDG_CACHE_HOME/pbem``, else ``~/.cache/pbem``."""
    if os.environ.get("PBEM_HOME"):
        return Path(os.environ["PBEM_HOME"]) / "cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pbem"


def enabled() -> bool:
    return SUPPORTED and not os.environ.get(OFF_ENV)


def _mine(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _open_dir(name: str | Path, dir_fd: int | None, create: bool) -> int | None:
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            return None
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
        fd = os.open(name, flags, dir_fd=dir_fd)
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode) and _mine(st):
        return fd
    os.close(fd)
    return None


def open_folder(folder: Path, create: bool = False) -> int | None:
    """A descriptor of ``folder`` (a folder of the cache folder: ``cache_dir() / NAME``), it and the
    cache folder opened without following a link and found this user's, unwritable by others;
    None otherwise (or where the cache is off). The caller closes it."""
    if not enabled():
        return None
    try:
        if create:
            folder.parent.parent.mkdir(parents=True, exist_ok=True)
        root = _open_dir(folder.parent, None, create)
        if root is None:
            return None
        try:
            return _open_dir(folder.name, root, create)
        finally:
            os.close(root)
    except OSError:
        return None


def read(dir_fd: int, name: str, limit: int) -> bytes | None:
    """The bytes of the file ``name`` in the folder: this user's regular file, unwritable by others,
    with no other name, of at most ``limit`` bytes; None otherwise. Its time is set to now (the
    files least recently used are the first removed)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _mine(st) or st.st_nlink != 1 or st.st_size > limit:
            return None
        chunks = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            return None
        try:
            os.utime(fd)
        except OSError:
            pass
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write(dir_fd: int, name: str, content: bytes) -> bool:
    """Write ``name`` in the folder whole: under a temporary name, then renamed (mode 0600)."""
    tmp = f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return True
    except BaseException as e:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        if isinstance(e, OSError):
            return False
        raise


def prune(dir_fd: int, max_bytes: int) -> None:
    """Keep the folder's files under ``max_bytes`` (the least recently used removed first, down to
    three quarters of it), and remove temporary files left by a killed process."""
    now = time.time()
    files = []
    total = 0
    try:
        with os.scandir(dir_fd) as it:
            for e in it:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                if e.name.endswith(".tmp"):
                    if now - st.st_mtime > STALE_TMP_SECONDS:
                        _unlink(e.name, dir_fd)
                    continue
                files.append((st.st_mtime_ns, e.name, st.st_size))
                total += st.st_size
    except OSError:
        return
    if total <= max_bytes:
        return
    for _, name, size in sorted(files):
        if total <= max_bytes * 3 // 4:
            break
        if _unlink(name, dir_fd):
            total -= size


def _unlink(name: str, dir_fd: int) -> bool:
    try:
        os.unlink(name, dir_fd=dir_fd)
        return True
    except OSError:
        return False
