"""Reads of results that span models, for pages and the API: one module per page family
(compare, rankings, value, drive_pages, runs), what they share in common.

Every selector takes plain values or querysets (never a request) and costs a fixed number of
queries whatever the size of the catalog.
"""
