"""Importers: other tools' output turned into result documents, which then go through
`results.services.run_ingest` like every other upload. One module per tool (`fio`)."""
