#!/bin/bash
# Start-up hook: the kit's ten student notebooks into ~/kgslab. The students' image runs it from
# /usr/local/bin/before-notebook.d/ (Jupyter Docker Stacks run every script there before the server starts); a
# hub without the image runs it from kgslab-singleuser.sh, its Spawner.cmd. Safe at every log-in: a notebook the
# student has run or edited is never overwritten, and an untouched one is brought up to the installed kit's
# version (python -m kgslab.notebooks --help). No --solutions: the students' image has none (the wheel carries
# none). A folder that is a git clone (an instructor who cloned the kit there) is left alone.
dest="${KGSLAB_NOTEBOOKS_DIR:-$HOME/kgslab}"
if [ -e "$dest/.git" ]; then
    echo "kgslab: $dest is a git clone, left alone (the notebooks are copied only into a folder of their own)" >&2
    exit 0
fi
python3 -m kgslab.notebooks "$dest" || echo "kgslab: could not copy the notebooks" >&2
