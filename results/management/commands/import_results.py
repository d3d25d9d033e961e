"""Import result documents from files and folders, each in its own transaction."""

import sys
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from results.documents import DocumentRejected
from results.services import run_ingest


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
        "Import result documents (loadgen output or published figures). A bad file is "
        "reported and writes nothing; the others go on. Importing a file twice is harmless."
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
        created = existing = rejected = 0
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
                continue
            except OSError as exc:
                rejected += 1
                progress.clear()
                self.stderr.write(f"{path}: cannot read: {exc.strerror}")
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
            f"{rejected} rejected"
        )
        if rejected:
            raise CommandError(f"{rejected} file(s) rejected", returncode=1)
