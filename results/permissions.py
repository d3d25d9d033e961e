"""Who may write results: the rules the API, the upload form and the admin share.

- Uploading (a result document or fio's output): users in the "reviewer" group.
- Withdrawing a run: its submitter while a reviewer, or a staff member.
- Trusted: staff, and reviewers in the "trusted reviewer" group, whose runs count in their
  drive's reviewed reference as they are published (results.plausibility); the runs of
  anyone else do once staff approve them.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from results.models import Run

REVIEWER_GROUP = "reviewer"  # created by results migration 0001
TRUSTED_GROUP = "trusted reviewer"  # created by results migration 0036


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
