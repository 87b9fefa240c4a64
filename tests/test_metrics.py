"""Metrics against hand-worked confusion matrices."""
import numpy as np
import pytest

from randml_core.metrics import accuracy, balanced_accuracy, confusion, gmean, log_loss, rmse


def test_binary_gmean_by_hand():
    # TP=3, FN=1, TN=4, FP=2: TPR = 3/4, TNR = 4/6
    y_true = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_pred = np.array([1, 1, 1, 0, 0, 0, 0, 0, 1, 1])
    cm, labels = confusion(y_true, y_pred)
    np.testing.assert_array_equal(cm, [[4, 2], [1, 3]])
    assert gmean(y_true, y_pred) == pytest.approx(np.sqrt(0.75 * 4 / 6))
    assert balanced_accuracy(y_true, y_pred) == pytest.approx((0.75 + 4 / 6) / 2)
    assert accuracy(y_true, y_pred) == pytest.approx(0.7)


def test_gmean_is_zero_when_a_class_is_never_predicted():
    y_true = np.array(["a", "a", "b", "b", "b"])
    assert gmean(y_true, np.array(["b"] * 5)) == 0.0
    assert balanced_accuracy(y_true, np.array(["b"] * 5)) == 0.5


def test_multiclass_gmean_is_geometric_mean_of_recalls():
    # recalls: class 0: 2/2, class 1: 1/3, class 2: 3/4
    y_true = np.array([0, 0, 1, 1, 1, 2, 2, 2, 2])
    y_pred = np.array([0, 0, 1, 0, 2, 2, 2, 2, 1])
    assert gmean(y_true, y_pred) == pytest.approx((1 * (1 / 3) * 0.75) ** (1 / 3))


def test_labels_argument_and_missing_class():
    with pytest.raises(ValueError, match="no true samples"):
        gmean([0, 0], [0, 1], labels=[0, 1])


def test_rmse_and_log_loss():
    assert rmse([1.0, 2.0, 3.0], [1.0, 4.0, 3.0]) == pytest.approx(np.sqrt(4 / 3))
    proba = np.array([[0.8, 0.2], [0.3, 0.7]])
    assert log_loss(["x", "y"], proba, ["x", "y"]) == pytest.approx(-(np.log(0.8) + np.log(0.7)) / 2)
