# The hub's system-wide nbgrader settings: /etc/jupyter/nbgrader_config.py in the students' image (and the
# instructor's). nbgrader reads it in every user's server: the assignment list (fetch, submit), validate.
# docs/jupyterhub.md; tests/test_jupyterhub_recipe.py checks it against the course the kit builds.
c = get_config()  # noqa: F821

# The course id `python -m kgslab.assignments` writes in the course's own config (kgslab.assignments.COURSE_ID).
c.CourseDirectory.course_id = "kgslab"

# The exchange: one folder every user's server mounts at the same path, writable by all
# (`mkdir -p /srv/nbgrader/exchange && chmod 777 /srv/nbgrader/exchange` on the shared volume).
# The instructor builds the course with `python -m kgslab.assignments course --exchange /srv/nbgrader/exchange`.
c.Exchange.root = "/srv/nbgrader/exchange"
