"""Grade on a Dask ``distributed`` cluster (``mcpmini grade --scheduler ADDRESS``).

:func:`grade_on_dask` reads each submission here, with ``O_NOFOLLOW`` as a local run does
(an invalid, unreadable or linked file gets its row here, without a task), and sends its
bytes — never a path, so workers need no shared file system — to :func:`remote_grade` on a
worker, which writes them to a scratch folder of its own and grades them exactly as a local
run does (:func:`~mcpmini.course.classroom.execution.grade_notebook`: a fresh kernel in its
own bubblewrap sandbox on that worker). Workers need this package and bubblewrap installed.

The connection is checked before anything is sent (:func:`check_scheduler`): a scheduler
reached over plain ``tcp://`` is accepted only on this machine's loopback; anything else must
be ``tls://`` with ``distributed``'s TLS security — mutual TLS, each side showing a certificate
of the class's own authority. :func:`make_certificates` (``mcpmini grade-certs DIR``) makes
that authority and a certificate for the scheduler, the workers and the grader;
:func:`security_from` reads them back. Without it, a learner process that can reach the
scheduler could submit tasks of its own to the workers and rewrite grades.

Rules of this module: every job ends as exactly one row. Each task has a key of its own
(``pure=False`` semantics), so two identical notebooks are two tasks. When a worker dies,
the scheduler reruns its tasks elsewhere and a future still yields one result, so no row is
lost or written twice; a task the scheduler gives up on (``KilledWorker`` after its allowed
failures) is an ``error`` row. Rows are passed to ``record`` in the order tasks finish, on
the calling thread; Ctrl-C cancels what is left. A worker without bubblewrap grades unsandboxed
and the grader prints its warning once — or, with
``require_isolation``, the worker refuses and the row is an ``error``.
"""

from __future__ import annotations

import asyncio
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .execution import GradeRow, RowStatus, grade_notebook

__all__ = [
    "CERT_FILES",
    "SchedulerRefused",
    "check_scheduler",
    "grade_on_dask",
    "make_certificates",
    "remote_grade",
    "security_from",
]

NO_SANDBOX_ON_WORKER = "isolation required, but bubblewrap is not available on this worker"

#: The files :func:`make_certificates` writes: the class's authority, then a certificate and
#: key for each side (the authority's key stays with the instructor, mode 0600).
CERT_FILES = (
    "ca.pem",
    "ca-key.pem",
    "scheduler.pem",
    "scheduler-key.pem",
    "worker.pem",
    "worker-key.pem",
    "client.pem",
    "client-key.pem",
)


class SchedulerRefused(ValueError):
    """A scheduler address the grader will not send submissions to; the message says why."""


def _loopback(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_scheduler(address: str, security: Any = None) -> None:
    """Refuse a scheduler the grader must not use: an address that is not ``tcp://`` or
    ``tls://``, a ``tls://`` one without ``security``, and a ``tcp://`` one (no TLS) whose
    host is not a loopback address. Raises :class:`SchedulerRefused` naming the address."""
    from urllib.parse import urlsplit

    scheme, sep, _ = address.partition("://")
    if not sep or scheme not in ("tcp", "tls"):
        raise SchedulerRefused(
            f"scheduler {address!r}: give tls://HOST:PORT (or tcp:// on loopback)"
        )
    try:
        host = urlsplit(address).hostname or ""
    except ValueError:
        host = ""
    if not host:
        raise SchedulerRefused(f"scheduler {address!r}: no host")
    if scheme == "tls" and security is None:
        raise SchedulerRefused(
            f"scheduler {address}: tls:// needs the class's certificates (--tls DIR, made by "
            "mcpmini grade-certs DIR)"
        )
    if scheme == "tcp" and not _loopback(host):
        raise SchedulerRefused(
            f"scheduler {address}: refused without TLS (anyone who reaches it could run code on "
            "the workers and rewrite grades); start it with TLS and use tls:// with --tls DIR "
            "(mcpmini grade-certs DIR makes the certificates)"
        )


def make_certificates(folder: Path, hosts: list[str], days: int = 30) -> list[Path]:
    """Write :data:`CERT_FILES` into ``folder`` (made ``0700``; keys ``0600``): a certificate
    authority for the class and one certificate for each side, valid ``days`` days, the
    scheduler's naming ``hosts`` (and ``localhost``). Refuses to overwrite: raises
    ``FileExistsError`` when any of the files is already there (nothing is written), and
    ``ValueError`` for a host that is neither a name nor an address."""
    import datetime as dt
    import ipaddress
    import os

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    names: list[x509.GeneralName] = [x509.DNSName("localhost")]
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            if not host or any(c in host for c in "/:@ "):
                raise ValueError(f"not a host name or address: {host!r}") from None
            names.append(x509.DNSName(host))
    folder = Path(folder)
    existing = [name for name in CERT_FILES if (folder / name).exists()]
    if existing:
        raise FileExistsError(f"{folder / existing[0]} exists: choose an empty folder")
    now = dt.datetime.now(dt.UTC)

    def build(subject: str, issuer: x509.Name, key: Any, signer: Any, ca: bool) -> Any:
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
        builder = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(issuer or name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if not ca:
            usages = [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            builder = builder.add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        return builder.sign(signer, hashes.SHA256())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = build("mcpmini class grading CA", None, ca_key, ca_key, True)  # type: ignore[arg-type]
    items: dict[str, tuple[Any, Any]] = {"ca": (ca_cert, ca_key)}
    for role in ("scheduler", "worker", "client"):
        key = ec.generate_private_key(ec.SECP256R1())
        items[role] = (build(f"mcpmini grading {role}", ca_cert.subject, key, ca_key, False), key)
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    written = []
    for role, (cert, key) in items.items():
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        for name, data, mode in (
            (f"{role}.pem", cert.public_bytes(serialization.Encoding.PEM), 0o644),
            (f"{role}-key.pem", pem, 0o600),
        ):
            fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            written.append(folder / name)
    return written


def security_from(folder: Path) -> Any:
    """The ``distributed.Security`` of the grader (the ``client`` certificate of
    :func:`make_certificates`), encryption required. Raises ``FileNotFoundError`` naming a
    missing file."""
    from distributed.security import Security

    folder = Path(folder)
    for name in ("ca.pem", "client.pem", "client-key.pem"):
        if not (folder / name).is_file():
            raise FileNotFoundError(f"{folder / name}: missing (mcpmini grade-certs DIR makes it)")
    return Security(
        tls_ca_file=str(folder / "ca.pem"),
        tls_client_cert=str(folder / "client.pem"),
        tls_client_key=str(folder / "client-key.pem"),
        require_encryption=True,
    )


def remote_grade(
    name: str, raw: bytes, learner: str, timeout: float, exercise: str, require_isolation: bool
) -> tuple[GradeRow, bool]:
    """Runs on a worker: grade the notebook ``raw`` (file name ``name``) for ``learner``.

    Returns the row and whether it ran in a bubblewrap sandbox.
    """
    from ...agent import bubblewrap_available

    isolated = bubblewrap_available()
    if require_isolation and not isolated:
        return GradeRow(learner, exercise, 0, 0, RowStatus.ERROR, NO_SANDBOX_ON_WORKER), False
    with tempfile.TemporaryDirectory(prefix="mcpmini-dask-") as scratch:
        path = Path(scratch) / Path(name).name
        path.write_bytes(raw)
        row = asyncio.run(grade_notebook(path, learner, timeout, exercise))
    return row, isolated


def _connect(address: str, connect_timeout: float, security: Any = None) -> object:
    import logging

    from distributed import Client

    # distributed logs each failed connection attempt; the caller reports the one line.
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=connect_timeout, set_as_default=False, security=security)
    except (OSError, TimeoutError, ValueError) as exc:
        raise RuntimeError(
            f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}: {exc})"[:300]
        ) from None
    finally:
        quiet.setLevel(level)


def grade_on_dask(
    address: str,
    pending: list[tuple[int, Any]],
    record: Callable[[int, GradeRow], None],
    *,
    job_row: Callable[[Any], GradeRow | None],
    failed_row: Callable[[Any, BaseException], GradeRow],
    warning: str,
    timeout: float,
    require_isolation: bool,
    connect_timeout: float = 10.0,
    security: Any = None,
) -> None:
    """Grade the ``(index, job)`` pairs of ``pending`` on the cluster at ``address``,
    passing each ``(index, row)`` to ``record`` (see the module rules). The jobs are
    :class:`~mcpmini.course.classroom.batch.Submission`; ``job_row`` gives the row of one
    that needs no kernel, ``failed_row`` the row of one whose task failed, and ``warning``
    is printed once when a worker had no sandbox.

    Raises :class:`SchedulerRefused` for an address :func:`check_scheduler` refuses (before
    connecting), ``RuntimeError`` when the scheduler cannot be reached in ``connect_timeout``
    seconds, ``ImportError`` when ``distributed`` is not installed.
    """
    from distributed import as_completed

    from .execution import SymlinkRefused, _read

    check_scheduler(address, security)
    client = _connect(address, connect_timeout, security)
    futures = {}
    run = secrets.token_hex(4)
    try:
        for i, job in pending:
            row = job_row(job)
            raw = b""
            if row is None:
                assert job.path is not None
                try:
                    nb, _, raw = _read(job.path)
                except SymlinkRefused:
                    nb = None
                if nb is None:  # invalid, unreadable or a link: no kernel, graded here
                    row = asyncio.run(grade_notebook(job.path, job.learner, timeout, job.exercise))
            if row is not None:
                record(i, row)
                continue
            assert job.path is not None
            future = client.submit(  # type: ignore[attr-defined]
                remote_grade,
                job.path.name,
                raw,
                job.learner,
                timeout,
                job.exercise,
                require_isolation,
                key=f"mcpmini-grade-{run}-{i}",
                retries=0,
            )
            futures[future] = (i, job)
        warned = False
        for future in as_completed(list(futures), loop=client.loop) if futures else ():  # type: ignore[attr-defined]
            i, job = futures.pop(future)
            try:
                row, isolated = future.result()
            except Exception as exc:  # KilledWorker, a worker without this package, ...
                row, isolated = failed_row(job, exc), True
            if not isolated and not warned and row.status is not RowStatus.ERROR:
                print(warning, file=sys.stderr)
                warned = True
            record(i, row)
    finally:
        if futures:
            client.cancel(list(futures))  # type: ignore[attr-defined]
        client.close()  # type: ignore[attr-defined]
