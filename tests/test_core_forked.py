"""`core.forked.shared_work`: every item taken by exactly one process, one result per
process (this one's first), errors of forked processes raised once all have ended."""

from __future__ import annotations

import os

import pytest

from political_sycophancy.core import forked
from political_sycophancy.core.errors import InputError

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="forks processes")


def taken_by(items):
    return os.getpid(), list(items)


def test_each_item_is_taken_once_in_order_within_each_process():
    results = forked.shared_work(taken_by, list(range(40)), jobs=2)
    assert len(results) == 2 and results[0][0] == os.getpid() and results[1][0] != os.getpid()
    taken = [item for _, items in results for item in items]
    assert sorted(taken) == list(range(40))
    assert all(items == sorted(items) for _, items in results)


def test_one_job_or_one_item_stays_in_this_process():
    assert forked.shared_work(taken_by, [1, 2, 3], jobs=1) == [(os.getpid(), [1, 2, 3])]
    assert forked.shared_work(taken_by, ["only"], jobs=4) == [(os.getpid(), ["only"])]
    assert forked.worker_count(None, 0) == 1 and forked.worker_count(3, 2) == 2


def fails_in_child(parent, error):
    def work(items):
        done = list(items)
        if os.getpid() != parent:
            raise error
        return done
    return work


def test_an_input_error_of_a_forked_process_is_raised_as_itself():
    with pytest.raises(InputError, match="^row 3: bad$"):
        forked.shared_work(fails_in_child(os.getpid(), InputError("row 3: bad")), list(range(10)), jobs=2)


def test_another_error_of_a_forked_process_names_its_type():
    with pytest.raises(RuntimeError, match="^KeyError: 'x'$"):
        forked.shared_work(fails_in_child(os.getpid(), KeyError("x")), list(range(10)), jobs=2)


def test_a_forked_process_that_dies_is_reported():
    def work(items):
        done = list(items)
        if os.getpid() != parent:
            os._exit(3)
        return done

    parent = os.getpid()
    with pytest.raises(RuntimeError, match="exited with code 3"):
        forked.shared_work(work, list(range(10)), jobs=2)


def pid_and(value):
    return os.getpid(), value


def test_an_early_worker_prepares_then_runs_one_call_in_its_own_process(tmp_path):
    marker = tmp_path / "prepared"
    worker = forked.EarlyWorker(lambda: marker.write_text(str(os.getpid())))
    pid, value = worker.run(pid_and, {"x": 1})
    assert value == {"x": 1} and pid != os.getpid() and marker.read_text() == str(pid)
    assert worker.process is None  # ended after its call


def test_an_early_worker_never_used_is_closed_and_a_failing_preparation_is_left_to_the_call(tmp_path):
    forked.EarlyWorker(lambda: None).close()
    worker = forked.EarlyWorker(lambda: 1 / 0)
    assert worker.run(pid_and, 3)[1] == 3


def raises_input_error():
    raise InputError("file f.csv, row 2: bad")


def test_an_early_workers_error_is_raised_here():
    with pytest.raises(InputError, match="^file f.csv, row 2: bad$"):
        forked.EarlyWorker(lambda: None).run(raises_input_error)
    with pytest.raises(RuntimeError, match="exited with code 4"):
        forked.EarlyWorker(lambda: None).run(os._exit, 4)
