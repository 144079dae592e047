# The server's journal and tokens in one process against the server library
# (tests/server/test_journal.c): random tokens fail closed, the journal's
# move-encoding and schema versions (migration, refusal), restores that
# cannot read a journal whole fail loudly; and `tessera serve` on a database
# of an unknown schema exits with a clear error.
tessera_add_test(test_journal
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_journal.c
  LIBS tessera_server
  ARGS $<TARGET_FILE:tessera>)

# The journal on PostgreSQL stores what the one on SQLite stores, batches
# of many writes of one match included, and brings a database of an earlier
# tessera up to date (tests/server/test_journal_pg.c)
tessera_add_test(test_journal_pg
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_journal_pg.c
  LIBS tessera_journal
  LABELS "pg;storage"
  TIMEOUT 120)
tessera_needs_services(test_journal_pg)
