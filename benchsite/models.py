# No models: this module only makes Django send benchsite's AppConfig the post_migrate signal
# (benchsite/apps.py creates the cache table there).
