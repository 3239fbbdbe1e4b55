#!/bin/bash
# Spawner.cmd of a hub without the students' image (one machine: LocalProcessSpawner, SystemdSpawner, The
# Littlest JupyterHub): Docker Stacks' before-notebook.d/ does not exist there, so this wrapper runs the same
# start-up hook, then the single-user server the hub asked for, with the hub's arguments.
#   install: cp docs/hub/kgslab-singleuser.sh docs/hub/kgslab-notebooks.sh /usr/local/bin/ (both executable)
#   jupyterhub_config.py: c.Spawner.cmd = ["/usr/local/bin/kgslab-singleuser.sh"]
# The hook never stops the server: it reports a failure and the server starts anyway.
"$(dirname "$0")/kgslab-notebooks.sh"
exec "${KGSLAB_SINGLEUSER:-jupyterhub-singleuser}" "$@"
