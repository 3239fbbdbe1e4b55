# The kgslab course on one machine without Docker (JupyterHub with local Unix users; docs/jupyterhub.md, "On a single
# machine"). Add these lines to your jupyterhub_config.py; the authenticator and the users are your hub's own.
c = get_config()  # noqa: F821

# Students' servers: the start-up hook (the ten notebooks into ~/kgslab), then jupyterhub-singleuser. The hub's
# environment has the kit's wheel and nbgrader installed, with the instructor tools disabled and locked.
c.Spawner.cmd = ["/usr/local/bin/kgslab-singleuser.sh"]

# Instructors' servers run from their own clone's environment, where formgrader is on and the solutions are: the
# clone in ~/kgslab-instructor (a folder the hook leaves alone), its .venv with jupyterhub installed
# (`make .venv/.installed && .venv/bin/pip install jupyterhub`, the hub's version).
INSTRUCTORS = {"instructor"}


def instructor_server(spawner):
    if spawner.user.name in INSTRUCTORS:
        home = f"/home/{spawner.user.name}"
        spawner.cmd = [f"{home}/kgslab-instructor/.venv/bin/jupyterhub-singleuser"]


c.Spawner.pre_spawn_hook = instructor_server
