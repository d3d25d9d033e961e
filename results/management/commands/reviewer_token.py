"""manage.py reviewer_token USER: make USER a reviewer and print a new API token for them.
The token is printed this once: the site keeps only its digest (django-rest-knox), so it
can never be shown again; their earlier tokens keep working until revoked. --create makes
the user first when there is none (without a password: a token signs them in to the API;
`make password NAME=...` or the admin gives them one for the upload form); --revoke deletes
every token of USER (USER stays a reviewer); --trusted makes them a trusted reviewer, whose
runs count in their drives' reviewed reference without staff approving each
(results.permissions). Tokens are also issued and revoked in the admin (Knox > Auth tokens).
`make reviewer NAME=...` runs it with --create, also while the site runs."""

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from knox.models import AuthToken

from results.services import reviewer_token_issue

NO_USER = (
    "there is no user {username!r} (--create makes one; or createsuperuser, or the admin's "
    "Users page)"
)
NO_TOKEN = "{username} has no token"
REVOKED = "revoked {count} token(s) of {username}"
INACTIVE = "{username} is not active: a token would not work"
SHOWN_ONCE = "{username}'s new API token (shown this once: the site keeps only its digest):"


class Command(BaseCommand):
    help = "Issue a new API token to a reviewer (or --revoke theirs); makes the user a reviewer."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--revoke", action="store_true", help="delete the user's tokens: they stop working"
        )
        parser.add_argument(
            "--create", action="store_true", help="make the user when there is none"
        )
        parser.add_argument(
            "--trusted",
            action="store_true",
            help="a trusted reviewer: their runs count in their drives' reviewed reference "
            "as they are published, without staff approving each",
        )

    def handle(self, *args, username: str, revoke: bool, create: bool, trusted: bool, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist:
            if not create or revoke:
                raise CommandError(NO_USER.format(username=username)) from None
            user = _new_user(User, username)
        if revoke:
            count, _ = AuthToken.objects.filter(user=user).delete()
            if not count:
                raise CommandError(NO_TOKEN.format(username=username))
            self.stdout.write(REVOKED.format(count=count, username=username))
            return
        if not user.is_active:
            raise CommandError(INACTIVE.format(username=username))
        token = reviewer_token_issue(user=user, trusted=trusted)
        self.stderr.write(SHOWN_ONCE.format(username=username), style_func=self.style.WARNING)
        self.stdout.write(token)


def _new_user(User, username: str):
    """A user of this name without a password, checked as the admin would check it."""
    user = User(**{User.USERNAME_FIELD: username})
    user.set_unusable_password()
    try:
        user.full_clean()
    except ValidationError as invalid:
        raise CommandError(f"{username!r}: {' '.join(invalid.messages)}") from None
    user.save()
    return user
