"""Writers of a project's timeline in other tools' formats: chrome.py (the
Chrome trace event format), otf2.py (an OTF2 archive), atomic.py (whole
files or none)."""
