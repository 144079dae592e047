# Exits at once, status 0, without reading anything (no_answer).
import sys
sys.exit(0)
