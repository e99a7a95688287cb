"""Built-in demo data: real classifiers on a dataset that ships inside scikit-learn.

Two examples, both made offline, reproducibly (fixed seeds, one process) and in about a
second:

* :func:`make_demo` - a multi-class, imbalanced task. The scikit-learn ``digits`` images are
  reduced to 4x4 pixels (so that the systems make errors worth comparing) and six digit
  classes are kept with very different sizes (180 down to 15 items). Eight systems of
  different kinds are evaluated by 5-fold stratified cross-validation
  (``cross_val_predict``): every item is predicted by a model that did not see it, and the
  fold of each item is written to the gold file. The set of systems is chosen so that the
  headline measures disagree: the class-weighted logistic regression is third under
  accuracy and MCC, behind the random forest and the unweighted logistic regression, but
  first under macro recall and K, and naive Bayes climbs from sixth place under accuracy to
  fourth under the class-balanced measures (``tests/test_examples.py`` checks the
  disagreement on freshly computed numbers). Every run's score columns are probabilities: the
  linear SVM has only decision values, and they are turned into probabilities by temperature
  scaling (Guo et al. 2017) fitted on the training folds, which keeps its predicted labels.
* :func:`make_binary_demo` - the breast-cancer data made imbalanced (about 9% malignant),
  10-fold stratified cross-validation as in Forman & Scholz (2010, section 4), and a
  ``score`` column per run (the model's probability of the positive class) for the
  cross-validation and AUC sections.

File layout (the one the readers take)::

    gold.tsv            id, label, fold
    runs/<system>.tsv   id, label, score_<class>...   (multi-class)
    runs/<system>.tsv   id, label, score              (binary)

scikit-learn is needed (it is in the ``report`` extra); it is imported only when a demo is
made.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["DEMO_CLASSES", "Demo", "demo_data", "binary_demo_data", "make_demo", "make_binary_demo",
           "load_demo", "shared_task_data", "BENCHMARK_TASKS", "benchmark_demo_data", "make_benchmark_demo",
           "write_benchmark", "shared_benchmark_data", "MultiLabelDemo", "multilabel_demo_data", "write_multilabel",
           "MULTILABEL_FORMATS"]

#: The digit classes kept in the multi-class demo and how many items of each: (name, digit, size).
DEMO_CLASSES = (
    ("one", 1, 180),
    ("seven", 7, 175),
    ("four", 4, 160),
    ("eight", 8, 60),
    ("three", 3, 30),
    ("nine", 9, 15),
)

#: Malignant items kept in the binary demo (of 212); all 357 benign items are kept.
BINARY_POSITIVES = 36


@dataclass(frozen=True)
class Demo:
    """An example in memory, before it is written.

    ``gold``: frame (id, label, fold). ``runs``: system name -> frame (id, label, score
    columns), rows aligned with ``gold``. ``labels``: the class names in a fixed order.
    ``positive``: the positive class of a binary example, else ``None``.
    """

    gold: pd.DataFrame
    runs: dict
    labels: tuple
    positive: str | None = None

    def write(self, out_dir) -> dict:
        """Write ``gold.tsv`` and ``runs/<system>.tsv`` under ``out_dir``.

        Returns ``{"gold": Path, "runs_dir": Path, "runs": {system: Path}}``.
        """
        out = Path(out_dir)
        runs_dir = out / "runs"
        runs_dir.mkdir(parents=True, exist_ok=True)
        gold_path = out / "gold.tsv"
        self.gold.to_csv(gold_path, sep="\t", index=False)
        paths = {}
        for name, frame in self.runs.items():
            path = runs_dir / f"{name}.tsv"
            # 6 significant digits: enough for any ranking, and byte-identical across runs
            frame.to_csv(path, sep="\t", index=False, float_format="%.6g")
            paths[name] = path
        return {"gold": gold_path, "runs_dir": runs_dir, "runs": paths}


def _systems(seed: int, *, multiclass: bool) -> dict:
    """The classifiers of the demo, by name (deterministic: every random state is ``seed``)."""
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier

    systems = {
        # the same model with and without class weights: the pair that splits the measures
        "logreg": make_pipeline(StandardScaler(), LogisticRegression(C=0.2, max_iter=2000)),
        "logreg_balanced": make_pipeline(StandardScaler(), LogisticRegression(
            C=0.2, max_iter=2000, class_weight="balanced")),
        "naive_bayes": GaussianNB(),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=15)),
        "tree": DecisionTreeClassifier(max_depth=5, random_state=seed),
        "forest": RandomForestClassifier(n_estimators=50, min_samples_leaf=3, random_state=seed),
        # decision values only: its scores are made probabilities by temperature scaling (_temperature_scaled)
        "linear_svm": make_pipeline(StandardScaler(), LinearSVC(C=0.01)),
        # predicts the majority class; its scores are the class priors (a chance baseline)
        "prior": DummyClassifier(strategy="prior"),
    }
    if not multiclass:
        del systems["logreg_balanced"], systems["linear_svm"]
    return systems


def _cross_validate(X, y, labels, folds, systems) -> dict:
    """Out-of-fold per-class scores of every system (name -> (N, K) array), split by ``folds``."""
    from sklearn.model_selection import PredefinedSplit, cross_val_predict
    from threadpoolctl import threadpool_limits  # a scikit-learn dependency

    cv = PredefinedSplit(folds)
    out = {}
    # one thread: these models are tiny, and BLAS/OpenMP threads only contend on a busy machine
    with threadpool_limits(limits=1):
        for name, model in systems.items():
            if hasattr(model, "predict_proba"):
                s = cross_val_predict(model, X, y, cv=cv, method="predict_proba", n_jobs=1)
            else:    # decision values (the linear SVM): made probabilities, the demo's runs all forecast
                s = _temperature_scaled(model, X, y, folds)
            out[name] = np.asarray(s, dtype=float).reshape(len(y), len(labels))
    return out


def _temperature_scaled(model, X, y, folds) -> np.ndarray:
    """Out-of-fold probabilities of a model with decision values only, by temperature scaling (Guo et al. 2017)."""
    from sklearn.base import clone
    from sklearn.model_selection import PredefinedSplit, cross_val_predict

    out = np.empty((len(y), int(y.max()) + 1))
    for f in np.unique(folds):
        train, test = folds != f, folds == f
        inner = cross_val_predict(clone(model), X[train], y[train], cv=PredefinedSplit(folds[train]),
                                  method="decision_function", n_jobs=1)
        t = _fit_temperature(np.asarray(inner, dtype=float), y[train])
        fitted = clone(model).fit(X[train], y[train])
        out[test] = _softmax(np.asarray(fitted.decision_function(X[test]), dtype=float) / t)
    return out


def _fit_temperature(decision: np.ndarray, y: np.ndarray) -> float:
    """The temperature whose softmax of ``decision`` has the least log loss on the class codes ``y``."""
    from scipy.optimize import minimize_scalar

    def loss(log_t: float) -> float:
        p = _softmax(decision / np.exp(log_t))
        return -float(np.mean(np.log(np.clip(p[np.arange(len(y)), y], 1e-300, None))))

    return float(np.exp(minimize_scalar(loss, bounds=(-6.0, 4.0), method="bounded").x))


def _softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax."""
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _stratified_folds(y, n_folds: int, seed: int) -> np.ndarray:
    from sklearn.model_selection import StratifiedKFold

    folds = np.empty(len(y), dtype=np.int64)
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    for f, (_, test) in enumerate(splitter.split(np.zeros(len(y)), y)):
        folds[test] = f
    return folds


def demo_data(*, seed: int = 0, n_folds: int = 5) -> Demo:
    """The multi-class demo in memory (see the module docstring)."""
    from sklearn.datasets import load_digits

    X, digit = load_digits(return_X_y=True)
    # 8x8 -> 4x4 by averaging 2x2 blocks: a harder, low-resolution version of the task
    X = X.reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(len(X), 16)
    rng = np.random.default_rng(seed)
    keep = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(digit == d), size=n, replace=False) for _, d, n in DEMO_CLASSES]))
    labels = tuple(name for name, _, _ in DEMO_CLASSES)
    lookup = np.full(10, -1)
    lookup[[d for _, d, _ in DEMO_CLASSES]] = np.arange(len(DEMO_CLASSES))
    X, y = X[keep], lookup[digit[keep]]  # y: codes into ``labels``
    folds = _stratified_folds(y, n_folds, seed)
    scores = _cross_validate(X, y, labels, folds, _systems(seed, multiclass=True))

    names = np.asarray(labels, dtype=object)
    ids = np.char.add("digits-", np.char.zfill(keep.astype(str), 4)).astype(object)
    gold = pd.DataFrame({"id": ids, "label": names[y], "fold": folds + 1})
    runs = {}
    for system, s in scores.items():
        frame = pd.DataFrame({"id": ids, "label": names[s.argmax(axis=1)]})
        frame[[f"score_{c}" for c in labels]] = s
        runs[system] = frame
    return Demo(gold=gold, runs=runs, labels=labels)


def binary_demo_data(*, seed: int = 0, n_folds: int = 10, positives: int = BINARY_POSITIVES) -> Demo:
    """The binary demo in memory: breast cancer, ``positives`` malignant vs 357 benign."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    X, target = data.data, data.target  # target 0 = malignant, 1 = benign
    rng = np.random.default_rng(seed)
    malignant = np.flatnonzero(target == 0)
    if not 0 < positives <= len(malignant):
        raise ValueError(f"positives must lie in 1..{len(malignant)}; got {positives}")
    keep = np.sort(np.concatenate([rng.choice(malignant, size=positives, replace=False),
                                   np.flatnonzero(target == 1)]))
    labels = ("benign", "malignant")
    X, y = X[keep], (target[keep] == 0).astype(np.int64)  # 1 = malignant (the positive class)
    folds = _stratified_folds(y, n_folds, seed)
    scores = _cross_validate(X, y, labels, folds, _systems(seed, multiclass=False))

    names = np.asarray(labels, dtype=object)
    ids = np.char.add("cancer-", np.char.zfill(keep.astype(str), 3)).astype(object)
    gold = pd.DataFrame({"id": ids, "label": names[y], "fold": folds + 1})
    runs = {system: pd.DataFrame({"id": ids, "label": names[s.argmax(axis=1)], "score": s[:, 1]})
            for system, s in scores.items()}
    return Demo(gold=gold, runs=runs, labels=labels, positive="malignant")


def make_demo(out_dir, *, seed: int = 0) -> dict:
    """Write the multi-class demo under ``out_dir``; returns the paths (see :meth:`Demo.write`)."""
    return demo_data(seed=seed).write(out_dir)


def make_binary_demo(out_dir, *, seed: int = 0, n_folds: int = 10,
                     positives: int = BINARY_POSITIVES) -> dict:
    """Write the binary demo under ``out_dir``; returns the paths (see :meth:`Demo.write`)."""
    return binary_demo_data(seed=seed, n_folds=n_folds, positives=positives).write(out_dir)


def load_demo(out_dir=None, *, binary: bool = False, seed: int = 0):
    """Make a demo and read it back as :class:`~evalreport.inputs.Runs` (with scores and folds).

    With ``out_dir`` the files are kept there; without, they are written to a temporary
    directory that is removed afterwards.
    """
    from evalreport.inputs.readers import read_runs

    make = make_binary_demo if binary else make_demo
    labels = ("benign", "malignant") if binary else tuple(name for name, _, _ in DEMO_CLASSES)
    if out_dir is not None:
        paths = make(out_dir, seed=seed)
        return read_runs(paths["gold"], runs_dir=paths["runs_dir"], labels=labels)
    with tempfile.TemporaryDirectory(prefix="evalreport-demo-") as tmp:
        paths = make(tmp, seed=seed)
        return read_runs(paths["gold"], runs_dir=paths["runs_dir"], labels=labels)


#: Names a participant might give a run: long, with version tags and underscores (for the long-names shape).
_LONG_NAME_PARTS = ("transformer", "ensemble", "multilingual", "baseline", "finetuned", "distilled", "contrastive",
                    "augmented", "retrieval", "prompted")


def shared_task_data(*, n_systems: int = 25, n_classes: int = 3, n_items: int = 600, long_names: bool = False,
                     seed: int = 0) -> Demo:
    """A synthetic shared task: ``n_systems`` runs of different skill on ``n_items`` items.

    The gold classes are imbalanced (shares decreasing geometrically by 0.6 per class). Each
    system has its own accuracy (spread between 0.45 and 0.85, several close to each other, so
    the leaderboard has near-ties) and its own bias towards the majority class, so accuracy and
    the class-balanced measures disagree. Used for the report's data shapes (few systems, many
    systems, long names) in tests and in ``benchmarks/report_shapes.py``.
    """
    if n_systems < 1 or n_classes < 2 or n_items < n_classes:
        raise ValueError("need n_systems >= 1, n_classes >= 2 and n_items >= n_classes")
    rng = np.random.default_rng(seed)
    shares = 0.6 ** np.arange(n_classes)
    shares /= shares.sum()
    y = np.concatenate([np.arange(n_classes), rng.choice(n_classes, size=n_items - n_classes, p=shares)])
    rng.shuffle(y)
    labels = tuple(f"class_{chr(ord('a') + k)}" if n_classes <= 26 else f"c{k:04d}" for k in range(n_classes))
    names = np.asarray(labels, dtype=object)
    ids = np.char.add("item-", np.char.zfill(np.arange(n_items).astype(str), 5)).astype(object)
    gold = pd.DataFrame({"id": ids, "label": names[y]})
    skills = np.sort(rng.uniform(0.45, 0.85, size=n_systems))[::-1]
    runs = {}
    for s, skill in enumerate(skills):
        majority_bias = rng.uniform(0.0, 0.6)             # how much of its errors go to the majority class
        right = rng.random(n_items) < skill
        wrong = (y + rng.integers(1, n_classes, size=n_items)) % n_classes
        to_major = (rng.random(n_items) < majority_bias) & (y != 0)
        wrong = np.where(to_major, 0, wrong)
        pred = np.where(right, y, wrong)
        if long_names:
            parts = rng.choice(_LONG_NAME_PARTS, size=3, replace=False)
            name = f"team{s + 1:02d}_{'_'.join(parts)}_run{s % 3 + 1}_v{s % 4 + 1}.{s % 10}"
        else:
            name = f"system_{s + 1:02d}"
        runs[name] = pd.DataFrame({"id": ids, "label": names[pred]})
    return Demo(gold=gold, runs=runs, labels=labels)


# ----------------------------------------------------------------------------- benchmark

#: The tasks of the benchmark demo: data sets that ship with scikit-learn, or are generated by it.
BENCHMARK_TASKS = ("digits", "iris", "wine", "breast_cancer", "synthetic_easy", "synthetic_hard")


def _cv_predictions(X, y, folds, systems) -> dict:
    """Out-of-fold predicted class codes of every system (fold ``f`` predicted by a model trained on the others)."""
    from sklearn.model_selection import PredefinedSplit, cross_val_predict
    from threadpoolctl import threadpool_limits

    cv = PredefinedSplit(folds)
    with threadpool_limits(limits=1):
        return {name: np.asarray(cross_val_predict(model, X, y, cv=cv, method="predict", n_jobs=1))
                for name, model in systems.items()}


def _benchmark_systems(seed: int) -> dict:
    """The single-task demo's eight classifiers and five more, thirteen in all."""
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import ExtraTreesClassifier
    from sklearn.linear_model import RidgeClassifier
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    systems = _systems(seed, multiclass=True)
    systems["forest"].set_params(n_estimators=25)     # six tasks x five folds: keep the demo under 15 s
    return {**systems,
            "lda": LinearDiscriminantAnalysis(),
            "extra_trees": ExtraTreesClassifier(n_estimators=25, min_samples_leaf=2, random_state=seed),
            "ridge": make_pipeline(StandardScaler(), RidgeClassifier(alpha=10.0)),
            "knn3": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=3)),
            # guesses in proportion to the training classes: a chance baseline
            "stratified_guess": DummyClassifier(strategy="stratified", random_state=seed)}


def _benchmark_task(name: str, seed: int):
    """(X, y codes, labels, id prefix) of one task of the benchmark demo."""
    from sklearn import datasets

    if name == "digits":     # the single-task demo's items (the same seeded draw as demo_data)
        X, digit = datasets.load_digits(return_X_y=True)
        X = X.reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(len(X), 16)
        rng = np.random.default_rng(seed)
        keep = np.sort(np.concatenate([
            rng.choice(np.flatnonzero(digit == d), size=n, replace=False) for _, d, n in DEMO_CLASSES]))
        lookup = np.full(10, -1)
        lookup[[d for _, d, _ in DEMO_CLASSES]] = np.arange(len(DEMO_CLASSES))
        return X[keep], lookup[digit[keep]], tuple(n for n, _, _ in DEMO_CLASSES), "digits"

    if name in ("iris", "wine", "breast_cancer"):
        data = getattr(datasets, f"load_{name}")()
        labels = tuple(str(t) for t in data.target_names)
        return data.data, np.asarray(data.target), labels, name
    hard = name == "synthetic_hard"
    X, y = datasets.make_classification(
        n_samples=800, n_features=12, n_informative=5 if hard else 8, n_redundant=2, n_classes=4,
        weights=[0.55, 0.25, 0.12, 0.08], class_sep=0.6 if hard else 1.2, flip_y=0.03,
        random_state=seed + (1 if hard else 0))
    return X, y, ("class_a", "class_b", "class_c", "class_d"), name


def benchmark_demo_data(*, seed: int = 0, n_folds: int = 5, tasks=BENCHMARK_TASKS) -> dict:
    """The benchmark demo in memory: task name -> :class:`Demo` (id, label, fold; runs of labels).

    Thirteen classifiers - the single-task demo's eight (:func:`_systems`) and five more - by
    5-fold stratified cross-validation on each task: the digits subset of :func:`demo_data`, iris, wine and breast
    cancer (as shipped with scikit-learn) and two ``make_classification`` tasks that share a
    four-class set (an easy and a hard one, so the benchmark has a pooled score). Offline and
    deterministic (every random state is ``seed``; one thread).
    """
    out = {}
    for name in tasks:
        X, y, labels, prefix = _benchmark_task(name, seed)
        folds = _stratified_folds(y, n_folds, seed)
        preds = _cv_predictions(X, y, folds, _benchmark_systems(seed))
        names = np.asarray(labels, dtype=object)
        ids = np.char.add(f"{prefix}-", np.char.zfill(np.arange(len(y)).astype(str), 4)).astype(object)
        gold = pd.DataFrame({"id": ids, "label": names[y], "fold": folds + 1})
        runs = {system: pd.DataFrame({"id": ids, "label": names[p]}) for system, p in preds.items()}
        out[name] = Demo(gold=gold, runs=runs, labels=labels)
    return out


def write_benchmark(tasks: dict, out_dir) -> Path:
    """Write task name -> :class:`Demo` as a tasks folder (``<task>/gold.tsv``, ``<task>/runs/``); returns it."""
    out = Path(out_dir)
    for name, demo in tasks.items():
        demo.write(out / name)
    return out


def make_benchmark_demo(out_dir, *, seed: int = 0) -> Path:
    """Write the benchmark demo as a tasks folder under ``out_dir`` (see :func:`benchmark_demo_data`)."""
    return write_benchmark(benchmark_demo_data(seed=seed), out_dir)


def shared_benchmark_data(*, n_systems: int = 20, n_tasks: int = 6, n_items: int = 10_000, n_classes: int = 3,
                          seed: int = 0) -> dict:
    """A synthetic benchmark: ``n_tasks`` tasks of :func:`shared_task_data` (seeds ``seed``,
    ``seed + 1``, ...), the same ``n_systems`` system names in each. A system's place in a task is
    its general ability plus a task-specific deviation (of the same spread), so a consensus exists
    but the tasks disagree on the order. Used for the 20 x 6 x 1e4 timing and report shapes."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(size=n_systems)
    out = {}
    for t in range(n_tasks):
        task = shared_task_data(n_systems=n_systems, n_classes=n_classes, n_items=n_items, seed=seed + t)
        runs = list(task.runs.values())                   # best first (skills sorted)
        order = np.argsort(-(ability + rng.normal(size=n_systems)), kind="stable")   # system ids, best first
        names = [f"system_{k + 1:02d}" for k in range(n_systems)]
        out[f"task_{t + 1}"] = replace(task, runs={names[k]: runs[r] for r, k in enumerate(order)})
    return out


# ----------------------------------------------------------------------------- multi-label

#: Default file format of each multi-label layout written by :func:`write_multilabel`.
MULTILABEL_FORMATS = {"list": "jsonl", "sep": "tsv", "long": "tsv", "wide": "csv"}


@dataclass(frozen=True)
class MultiLabelDemo:
    """A multi-label example in memory: ``gold`` (N, L) bool, ``runs`` system -> (N, L) bool,
    ``labels`` (L names), ``ids`` (N ids)."""

    gold: np.ndarray
    runs: dict
    labels: tuple
    ids: np.ndarray

    def write(self, out_dir, *, layout: str = "list", fmt: str | None = None, sep: str = ",") -> dict:
        """Write the example in one layout: see :func:`write_multilabel`."""
        return write_multilabel(self.gold, self.runs, self.labels, self.ids, out_dir, layout=layout, fmt=fmt, sep=sep)


def _multilabel_systems(seed: int) -> dict:
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.naive_bayes import BernoulliNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    return {
        "logreg": OneVsRestClassifier(LogisticRegression(solver="liblinear")),
        "logreg_strong_l2": OneVsRestClassifier(LogisticRegression(C=0.002, solver="liblinear")),
        "logreg_balanced": OneVsRestClassifier(LogisticRegression(class_weight="balanced", solver="liblinear")),
        "knn_5": KNeighborsClassifier(n_neighbors=5),
        "knn_50": KNeighborsClassifier(n_neighbors=50),
        "tree_depth4": DecisionTreeClassifier(max_depth=4, random_state=seed),
        "tree_full": DecisionTreeClassifier(random_state=seed),
        "forest": RandomForestClassifier(n_estimators=20, max_depth=12, random_state=seed, n_jobs=1),
        "bernoulli_nb": OneVsRestClassifier(BernoulliNB()),
        "dummy_stratified": DummyClassifier(strategy="stratified", random_state=seed),
    }


def multilabel_demo_data(n_systems: int = 10, n_labels: int = 20, n_items: int = 5000, seed: int = 0) -> MultiLabelDemo:
    """A multi-label task made offline: scikit-learn's ``make_multilabel_classification`` (about 3
    labels per item on average, some items with none) and up to 10 classifiers of different kinds
    (one-vs-rest logistic regression three ways, k-NN with 5 and 50 neighbours, a shallow and a full
    tree, a small forest, one-vs-rest Bernoulli naive Bayes, a stratified dummy), each predicting
    every item by 3-fold cross-validation (``cross_val_predict``: no item is predicted by a model
    that saw it). Deterministic for a seed; about 10 s for the default size on one core.
    """
    from sklearn.datasets import make_multilabel_classification
    from sklearn.model_selection import KFold, cross_val_predict

    systems = _multilabel_systems(seed)
    if not 1 <= n_systems <= len(systems) or n_labels < 2 or n_items < 10:
        raise ValueError(f"need 1 <= n_systems <= {len(systems)}, n_labels >= 2 and n_items >= 10")
    X, Y = make_multilabel_classification(n_samples=n_items, n_features=30, n_classes=n_labels, n_labels=3,
                                          allow_unlabeled=True, random_state=seed)
    X = (X - X.mean(axis=0)) / X.std(axis=0)      # word-count features: scaled, the solvers converge in few steps
    folds = KFold(n_splits=3, shuffle=True, random_state=seed)
    runs = {name: cross_val_predict(model, X, Y, cv=folds).astype(bool)
            for name, model in list(systems.items())[:n_systems]}
    width = len(str(n_labels - 1))
    labels = tuple(f"label_{k:0{width}d}" for k in range(n_labels))
    ids = np.char.add("item-", np.char.zfill(np.arange(n_items).astype(str), 5)).astype(object)
    return MultiLabelDemo(gold=Y.astype(bool), runs=runs, labels=labels, ids=ids)


def write_multilabel(gold, runs: dict, labels, ids, out_dir, *, layout: str = "list", fmt: str | None = None,
                     sep: str = ",", id_col: str = "id") -> dict:
    """Write multi-label gold and runs as ``gold.<fmt>`` and ``runs/<system>.<fmt>`` in one layout
    (the ones :func:`evalreport.inputs.multilabel.read_multilabel` reads): ``list`` (a ``label``
    list column: JSON Lines or Parquet), ``sep`` (labels joined by ``sep`` in a ``label`` field),
    ``long`` (one ``id, label`` row per pair; an item with the empty set gets one row with an empty
    label) or ``wide`` (one 0/1 column per label). ``fmt``: ``tsv``, ``csv``, ``jsonl`` or
    ``parquet`` (default per layout: :data:`MULTILABEL_FORMATS`). ``id_col`` names the item id
    column; in the ``wide`` layout no label may take its name (the header would hold it twice).

    Returns ``{"gold": Path, "runs_dir": Path, "runs": {system: Path}}``.
    """
    fmt = fmt or MULTILABEL_FORMATS[layout]
    if layout not in MULTILABEL_FORMATS or fmt not in ("tsv", "csv", "jsonl", "parquet"):
        raise ValueError(f"unknown layout {layout!r} or format {fmt!r}")
    if layout == "list" and fmt in ("tsv", "csv"):
        raise ValueError("the list layout needs JSON Lines or Parquet")
    names = np.asarray(labels, dtype=object)
    if layout == "sep" and any(sep in str(n) for n in names):
        raise ValueError(f"a label contains the separator {sep!r}")
    if layout == "wide" and id_col in [str(n) for n in names]:
        raise ValueError(f"a label is named {id_col!r} like the id column; a wide header would hold it twice "
                         "(name the id column otherwise: id_col=...)")
    ids = np.asarray(ids, dtype=object)

    def frame(matrix) -> pd.DataFrame:
        matrix = np.asarray(matrix, dtype=bool)
        if layout == "wide":
            return pd.concat([pd.DataFrame({id_col: ids}),
                              pd.DataFrame(matrix.astype(np.int8), columns=[str(n) for n in names])], axis=1)
        if layout == "long":
            rows, cols = np.nonzero(matrix)
            empty = np.flatnonzero(~matrix.any(axis=1))
            order = np.argsort(np.concatenate([rows, empty]), kind="stable")
            return pd.DataFrame({id_col: np.concatenate([ids[rows], ids[empty]])[order],
                                 "label": np.concatenate([names[cols], np.full(empty.size, "", dtype=object)])[order]})
        sets = [list(names[row]) for row in matrix]
        return pd.DataFrame({id_col: ids, "label": sets if layout == "list" else [sep.join(s) for s in sets]})

    def save(df: pd.DataFrame, path: Path) -> None:
        if fmt == "jsonl":
            df.to_json(path, orient="records", lines=True, force_ascii=False)
        elif fmt == "parquet":
            df.to_parquet(path, index=False)
        else:
            df.to_csv(path, sep="\t" if fmt == "tsv" else ",", index=False)

    out = Path(out_dir)
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    gold_path = out / f"gold.{fmt}"
    save(frame(gold), gold_path)
    paths = {}
    for name, matrix in runs.items():
        paths[name] = runs_dir / f"{name}.{fmt}"
        save(frame(matrix), paths[name])
    return {"gold": gold_path, "runs_dir": runs_dir, "runs": paths}
