# The server's journal and tokens in one process against the server library
# (tests/server/test_journal.c): random tokens fail closed, the journal's
# move-encoding and schema versions (migration, refusal), restores that
# cannot read a journal whole fail loudly; and `tessera serve` on a database
# of an unknown schema exits with a clear error.
tessera_add_test(test_journal
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_journal.c
  LIBS tessera_server
  ARGS $<TARGET_FILE:tessera>)
