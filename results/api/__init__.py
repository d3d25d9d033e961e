"""The REST API of the results app (routed in benchsite/urls.py under /api/v1/)."""
