"""The sandbox's launcher (run as ``python -I -S _launch.py <config json>`` by ``sandbox.py``).

It is the sandboxed process itself until it execs the user's command: it cuts the network (a new
network namespace whose loopback is up but reaches nothing outside), drops core dumps, sets the
umask, pins the CPUs, sets no_new_privs, switches to the sandbox user (or the run's own uid, with
a process limit), then ``execve`` the command with exactly the environment it was given. What it
managed to enforce goes back as one JSON object on a status pipe.
Standard library only (``-S``: no site-packages), Django- and torch-free.
"""

import ctypes
import fcntl
import json
import os
import pwd
import resource
import socket
import struct
import sys

CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
PR_SET_NO_NEW_PRIVS = 38
MAX_PROCESSES = 2048  # processes and threads of a run uid


def _loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sh22x", b"lo", 0)
        flags = struct.unpack("16sh22x", fcntl.ioctl(s, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", flags | IFF_UP))


def main() -> None:
    config = json.loads(sys.argv[1])
    status_fd = int(config["status_fd"])
    errors: list[str] = []
    status: dict[str, object] = {"user": False, "network": False, "errors": errors}
    if not config["network"]:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(CLONE_NEWNET) == 0:
            status["network"] = True
            try:
                _loopback_up()
            except OSError as exc:  # the namespace still cuts the network; local sockets fail
                errors.append(f"loopback stays down in the network namespace: {exc}")
        else:
            errors.append(
                f"network isolation unavailable: unshare(CLONE_NEWNET) failed: "
                f"{os.strerror(ctypes.get_errno())}"
            )
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.umask(0o077)
    cpus = int(config["cpus"])
    available = sorted(os.sched_getaffinity(0))
    if cpus > 0 and cpus < len(available):
        os.sched_setaffinity(0, available[:cpus])
    user, uid = config.get("user"), config.get("uid")
    if (user or uid is not None) and os.geteuid() == 0:
        if uid is not None:  # a uid of the run's own (its gid alike), no passwd entry needed
            target_uid = target_gid = int(uid)
        else:
            entry = pwd.getpwnam(user)
            target_uid, target_gid = entry.pw_uid, entry.pw_gid
        if uid is not None:  # the uid is the run's alone: its process count bounds a fork bomb
            resource.setrlimit(resource.RLIMIT_NPROC, (MAX_PROCESSES, MAX_PROCESSES))
        os.setgroups([])
        os.setgid(target_gid)
        os.setuid(target_uid)
        status["user"] = os.getuid() == target_uid and os.geteuid() == target_uid
    # no setuid binary (su, sudo, ping) can raise the code's privileges again
    libc = ctypes.CDLL(None, use_errno=True)
    status["no_new_privs"] = libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
    os.write(status_fd, json.dumps(status).encode())
    os.close(status_fd)
    argv = config["argv"]
    try:
        os.execvpe(argv[0], argv, dict(os.environ))
    except OSError as exc:
        sys.stderr.write(f"cannot run {argv[0]}: {exc}\n")
        sys.stderr.flush()
        os._exit(127)


if __name__ == "__main__":
    main()
