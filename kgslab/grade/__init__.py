"""Grading a whole class: ``python -m kgslab.grade COURSE_DIR NN_topic`` (README, "Grading a class").

nbgrader has no parallel autograde (jupyter/nbgrader#174): one
``nbgrader autograde NN --student S`` after another takes hours for a class,
and a hanging submission holds the queue.  This package runs nbgrader's own
autograde, unchanged (the course's ``nbgrader_config.py``, with kgslab's
defended grading preprocessors), for every submission of an assignment:

* `worker`: one submission, graded in a worker process that keeps nbgrader
  imported between submissions (starting it costs seconds) and writes to its
  own copy of the gradebook; what autograde wrote there comes back as data;
* `merge`: that data written into the course's ``gradebook.db`` through
  nbgrader's Gradebook API (grades, comments, late penalty, needs-manual-grade);
* `record`: which submission file (its hash) was graded, so a rerun skips it;
* `run`: the submissions spread over local processes (concurrent.futures) or a
  Dask cluster (``--scheduler``), with a progress bar and a summary line;
* `class_report`: the class report (HTML page and CSV) read from the gradebook and
  the structured verdicts kgslab.grader leaves in the autograded notebooks.
"""

from .run import Summary, grade_class

__all__ = ["Summary", "grade_class"]
