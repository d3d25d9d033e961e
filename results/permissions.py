"""Who may write results, and who may see a run held for review: the rules the API, the
upload form, the run page and the admin share.

- Uploading (a result document or fio's output): users in the "reviewer" group.
- Withdrawing a run: its submitter while a reviewer, or a staff member.
- Trusted: staff, and reviewers in the "trusted reviewer" group, whose runs count in their
  drive's reviewed reference as they are published (results.plausibility); the runs of
  anyone else do once staff approve them.
- Seeing a held run, and why it was held (or why it was withdrawn): its submitter and staff,
  signed in or by API token; and, on its page, whoever holds its key (`held_key`): a
  signature of the run and its submitter that the upload's answer, the submitter's run list
  and the run API hand them in its page's link (`page_link`), since a reviewer uploads with
  a token and often has no session (nor even a password). The key opens the page only
  while the run is held: once published the page is public, and once withdrawn the key
  shows only what everyone sees.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core import signing
from django.utils.crypto import constant_time_compare

from results.models import Run

# A held run's key signs this (with the site's secret key and HELD_KEY_SALT): the run and its
# submitter, so that a key opens no other run, nor this one once credited to another user.
HELD_KEY_SALT = "results.permissions.held-run"
HELD_KEY_PARAMETER = "key"  # the query parameter of the run page that carries it

REVIEWER_GROUP = "reviewer"  # created by results migration 0001
TRUSTED_GROUP = "trusted reviewer"  # created by results migration 0038


def is_reviewer(user: AbstractBaseUser | AnonymousUser) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    # Cached on the user object: a request asks once however many checks it makes.
    if not hasattr(user, "_bench_is_reviewer"):
        user._bench_is_reviewer = user.groups.filter(name=REVIEWER_GROUP).exists()
    return user._bench_is_reviewer


def is_trusted(user: AbstractBaseUser | AnonymousUser | None) -> bool:
    """Whether runs `user` submits count in the reviewed reference without approval: staff
    and trusted reviewers; None, a command run by whoever runs the site, is trusted."""
    if user is None:
        return True
    if not user.is_authenticated or not user.is_active:
        return False
    return user.is_staff or user.groups.filter(name=TRUSTED_GROUP).exists()


def may_withdraw(user: AbstractBaseUser | AnonymousUser, run: Run) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    if user.is_staff:
        return True
    return run.submitter_id == user.pk and is_reviewer(user)


def may_see_own(user: AbstractBaseUser | AnonymousUser, run: Run) -> bool:
    """What only a run's submitter and staff are told: a held run, why it was held, why
    and by whom it was withdrawn."""
    return user.is_authenticated and (user.is_staff or run.submitter_id == user.pk)


def _held_value(run: Run) -> str:
    return f"run {run.pk} submitted by {run.submitter_id}"


def held_key(run: Run) -> str:
    """The key of a held run's page: an HMAC-SHA256 of the run and its submitter under the
    site's secret key (django.core.signing), URL-safe; unguessable without that secret."""
    return signing.Signer(salt=HELD_KEY_SALT).signature(_held_value(run))


def held_key_opens(run: Run, key: str | None) -> bool:
    """`key` is the key of this run, which is held for review and has a submitter (a key
    made under one of SECRET_KEY_FALLBACKS still opens it)."""
    if not key or run.status != Run.Status.HELD or run.submitter_id is None:
        return False
    signer = signing.Signer(salt=HELD_KEY_SALT)
    value = _held_value(run)
    return any(
        constant_time_compare(key, signer.signature(value, secret))
        for secret in (signer.key, *signer.fallback_keys)
    )


def page_link(run: Run, user: AbstractBaseUser | AnonymousUser) -> str:
    """The run page's address as `user` is given it: with its key for a held run of theirs
    (its submitter, or staff), so that it opens without a session; else the page itself."""
    url = run.get_absolute_url()
    if run.status == Run.Status.HELD and run.submitter_id is not None and may_see_own(user, run):
        return f"{url}?{HELD_KEY_PARAMETER}={held_key(run)}"
    return url
