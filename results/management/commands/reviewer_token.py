"""manage.py reviewer_token USER: make USER a reviewer and print their API token (the same
one again if they have one); --revoke deletes the token (USER stays a reviewer). Tokens are
also issued and revoked in the admin (Auth Token > Tokens)."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
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

    def handle(self, *args, username: str, revoke: bool, **options):
        User = get_user_model()
        try:
            user = User.objects.get(**{User.USERNAME_FIELD: username})
        except User.DoesNotExist:
            raise CommandError(
                f"there is no user {username!r} (create one: createsuperuser, "
                "or the admin's Users page)"
            ) from None
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
