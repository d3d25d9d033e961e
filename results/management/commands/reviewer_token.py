"""manage.py reviewer_token USER: make USER a reviewer and print their API token (the same
one again if they have one); --create makes the user first when there is none (without a
password: a token signs them in to the API; staff set one in the admin for the upload form);
--revoke deletes the token (USER stays a reviewer). Tokens are also issued and revoked in the
admin (Auth Token > Tokens). `make reviewer NAME=...` runs it with --create, also while the
site runs."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token

from results.permissions import REVIEWER_GROUP


class Command(BaseCommand):
    help = "Issue (or --revoke) the API token of a reviewer; makes the user a reviewer."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--revoke", action="store_true", help="delete the user's token: it stops working"
        )
        parser.add_argument(
            "--create", action="store_true", help="make the user when there is none"
        )

    def handle(self, *args, username: str, revoke: bool, create: bool, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist:
            if not create or revoke:
                raise CommandError(
                    f"there is no user {username!r} (--create makes one; or createsuperuser, "
                    "or the admin's Users page)"
                ) from None
            user = _new_user(User, username)
        if revoke:
            deleted, _ = Token.objects.filter(user=user).delete()
            if not deleted:
                raise CommandError(f"{username} has no token")
            self.stdout.write(f"revoked the token of {username}")
            return
        if not user.is_active:
            raise CommandError(f"{username} is not active: a token would not work")
        with transaction.atomic():
            group, _ = Group.objects.get_or_create(name=REVIEWER_GROUP)
            user.groups.add(group)
            token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)


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
