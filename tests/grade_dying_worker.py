"""A stand-in for kgslab.grade.worker.grade_submission whose 'killer' submission ends its worker process
(tests/test_grade_units.py): a module of its own, so that a spawned worker imports nothing else."""

import os


def dies_on_the_killer(task):
    if task["student"] == "killer":
        os._exit(9)
    return {**task, "status": "graded", "seconds": 0.0, "log": ""}
