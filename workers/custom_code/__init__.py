"""Custom code on a worker (Django-free): the sandbox a user's code runs in, the Python it runs
with (requirements environments), the dataset layout it reads, the notebook executor, and the runner
that ties them into one job run (see /work/notes/API.md section 1 and docs/custom-code.md)."""
