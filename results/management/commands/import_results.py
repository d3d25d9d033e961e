"""Import result documents from files and folders, each in its own transaction."""

import sys
import traceback
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from results.documents import DocumentRejected
from results.services import run_ingest

FAILED = "{path}: failed, nothing written: {kind}: {detail}"
DETAIL_LIMIT = 300  # characters of an exception's message on the report line


def expand(paths: list[str]) -> list[Path]:
    """Files as given, folders as every *.json below them, in a stable order."""
    found: list[Path] = []
    for name in paths:
        path = Path(name)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.json") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise CommandError(f"{name}: no such file or folder")
    return found


class Progress:
    """A one-line progress bar on a terminal; nothing when output is redirected."""

    WIDTH = 30

    def __init__(self, total: int, stream=sys.stderr):
        self.total, self.stream = total, stream
        self.enabled = stream.isatty() and total > 1

    def show(self, done: int, label: str) -> None:
        if not self.enabled:
            return
        filled = self.WIDTH * done // self.total
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {label[-40:]:<40}")
        self.stream.flush()

    def clear(self) -> None:
        if self.enabled:
            self.stream.write("\r" + " " * (self.WIDTH + 60) + "\r")


class Command(BaseCommand):
    help = (
        "Import result documents (loadgen output or published figures). Each file is its "
        "own unit: a bad file, or one that makes the import fail in any other way, is "
        "reported by name and writes nothing, and the others go on; the exit status is 1 "
        "when any file was not imported. Importing a file twice is harmless."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
        parser.add_argument(
            "--submitter", metavar="USERNAME", help="the reviewer the runs are credited to"
        )

    def handle(self, *args, **options):
        submitter = None
        if options["submitter"]:
            try:
                submitter = get_user_model().objects.get_by_natural_key(options["submitter"])
            except get_user_model().DoesNotExist as exc:
                raise CommandError(f"no user named {options['submitter']}") from exc
        files = expand(options["paths"])
        progress = Progress(len(files))
        created = existing = rejected = failed = 0
        for index, path in enumerate(files, start=1):
            progress.show(index - 1, path.name)
            try:
                outcome = run_ingest(document=path.read_bytes(), submitter=submitter)
            except DocumentRejected as exc:
                rejected += 1
                progress.clear()
                self.stderr.write(f"{path}: rejected")
                for problem in exc.problems:
                    self.stderr.write(f"  {problem.pointer or '/'}: {problem.message}")
                if exc.note:
                    self.stderr.write(f"  {exc.note}")
                continue
            except OSError as exc:
                rejected += 1
                progress.clear()
                self.stderr.write(f"{path}: cannot read: {exc.strerror}")
                continue
            except Exception as exc:
                # Not the document's fault as far as we know (a bug, the database): the
                # file's transaction was rolled back; report it and go on with the next.
                failed += 1
                progress.clear()
                detail = " ".join(str(exc).split())[:DETAIL_LIMIT]
                self.stderr.write(FAILED.format(path=path, kind=type(exc).__name__, detail=detail))
                if options["verbosity"] >= 3:
                    self.stderr.write(traceback.format_exc())
                continue
            if outcome.created:
                created += 1
            else:
                existing += 1
            if options["verbosity"] >= 2:
                progress.clear()
                state = "imported" if outcome.created else "already present"
                self.stdout.write(f"{path}: {state} as run {outcome.run.pk}")
        progress.show(len(files), "done")
        progress.clear()
        self.stdout.write(
            f"{len(files)} file(s): {created} imported, {existing} already present, "
            f"{rejected} rejected, {failed} failed"
        )
        if rejected or failed:
            raise CommandError(
                f"{rejected + failed} file(s) not imported: {rejected} rejected, {failed} failed",
                returncode=1,
            )
