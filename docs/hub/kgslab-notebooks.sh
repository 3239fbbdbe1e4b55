#!/bin/bash
# Start-up hook of the students' image (Jupyter Docker Stacks run every script in
# /usr/local/bin/before-notebook.d/ before the server starts): the kit's ten student notebooks into
# ~/kgslab. Safe at every log-in: a notebook the student has run or edited is never overwritten, and an
# untouched one is brought up to the installed kit's version (python -m kgslab.notebooks --help).
# No --solutions: the students' image has none (the wheel carries none).
python -m kgslab.notebooks "${KGSLAB_NOTEBOOKS_DIR:-$HOME/kgslab}" || echo "kgslab: could not copy the notebooks" >&2
