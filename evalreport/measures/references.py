"""The works that measures and methods cite: one table, so that a bibliography follows from the registry.

The registry is the one place where a measure's source is written (``Measure.source``, e.g.
``"Opitz (2022), eq. 18-19"``). This module holds what those strings refer to: each
:class:`Work` has a stable BibTeX key (first author's surname + year + first title word, never a
counter), its BibTeX fields, and the patterns by which a source string names it (an author's
surname, an author and year, or a software name). :func:`works_for_source` resolves a source
string; :func:`works_for_measures` collects the works behind a list of measure ids (source and 0/0
convention); :data:`METHODS` maps each statistical method evalreport applies to the works that
define it. A registered measure whose source names no work here is caught by the tests
(``tests/test_appendix_bib.py``), so a new measure cannot enter without its reference.

DOIs are given where the work has one; NeurIPS proceedings, Holm (1979, Scandinavian Journal of
Statistics), Nemenyi's thesis (1963), Kemeny (1959, Daedalus) and the Fake News Challenge have none.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Work", "WORKS", "METHODS", "get_work", "works_for_source", "works_for_measures", "works_for_methods",
           "bibtex", "author_year"]


@dataclass(frozen=True)
class Work:
    """One cited work: ``key`` (BibTeX key), ``kind`` (BibTeX entry type), ``fields`` (BibTeX fields,
    plain text; :func:`bibtex` escapes them) and ``patterns`` (regular expressions, matched
    case-sensitively, by which a source string refers to the work)."""

    key: str
    kind: str
    fields: dict = field(hash=False)
    patterns: tuple[str, ...] = ()


def _w(key, kind, patterns, **fields) -> Work:
    return Work(key, kind, fields, tuple(patterns))


WORKS: tuple[Work, ...] = (
    # the five papers of the specification (/work/shared/papers/README.md)
    _w("sebastiani2015axiomatically", "inproceedings", (r"\bSebastiani\b",),
       author="Sebastiani, Fabrizio", year="2015",
       title="An Axiomatically Derived Measure for the Evaluation of Classification Algorithms",
       booktitle="Proceedings of the 2015 International Conference on the Theory of Information Retrieval (ICTIR)",
       pages="11--20", publisher="ACM", doi="10.1145/2808194.2809449"),
    _w("forman2010apples", "article", (r"\bForman\b",),
       author="Forman, George and Scholz, Martin", year="2010",
       title="Apples-to-Apples in Cross-Validation Studies: Pitfalls in Classifier Performance Measurement",
       journal="ACM SIGKDD Explorations Newsletter", volume="12", number="1", pages="49--57",
       doi="10.1145/1882471.1882479"),
    _w("opitz2022bias", "misc", (r"\bOpitz\b",),
       author="Opitz, Juri", year="2022",
       title="From Bias and Prevalence to Macro F1, Kappa, and MCC: A structured overview of metrics for "
             "multi-class evaluation",
       note="Heidelberg University; revised as ``A Closer Look at Classification Evaluation Metrics and a "
            "Critical Reflection of Common Evaluation Practice'', Transactions of the ACL 12 (2024), "
            "doi:10.1162/tacl\\_a\\_00675, arXiv:2404.16958"),
    _w("hand2021fstar", "article", (r"\bHand,? (Christen|et al)",),
       author="Hand, David J. and Christen, Peter and Kirielle, Nishadi", year="2021",
       title="F*: an interpretable transformation of the F-measure", journal="Machine Learning", volume="110",
       number="3", pages="451--456", doi="10.1007/s10994-021-05964-1"),
    _w("gosgens2021good", "inproceedings", (r"\bG(ö|o|oe)sgens\b",),
       author="G{\\\"o}sgens, Martijn and Zhiyanov, Anton and Tikhonov, Alexey and Prokhorenkova, Liudmila",
       year="2021", title="Good Classification Measures and How to Find Them",
       booktitle="Advances in Neural Information Processing Systems 34 (NeurIPS 2021)", pages="17136--17147"),
    # works the papers cite for a measure, named in the registry's sources
    _w("cohen1968weighted", "article", (r"\bCohen 1968\b",),
       author="Cohen, Jacob", year="1968",
       title="Weighted kappa: Nominal scale agreement with provision for scaled disagreement or partial credit",
       journal="Psychological Bulletin", volume="70", number="4", pages="213--220", doi="10.1037/h0026256"),
    _w("baccianella2009evaluation", "inproceedings", (r"\bBaccianella\b",),
       author="Baccianella, Stefano and Esuli, Andrea and Sebastiani, Fabrizio", year="2009",
       title="Evaluation Measures for Ordinal Regression",
       booktitle="Proceedings of the Ninth International Conference on Intelligent Systems Design and "
                 "Applications (ISDA)", pages="283--287", doi="10.1109/ISDA.2009.230"),
    _w("powers2011evaluation", "article", (r"\bPowers 2011\b",),
       author="Powers, David M. W.", year="2011",
       title="Evaluation: From Precision, Recall and F-Measure to ROC, Informedness, Markedness and Correlation",
       journal="Journal of Machine Learning Technologies", volume="2", number="1", pages="37--63"),
    _w("wei2010novel", "article", (r"\bWei et al\.? 2010\b",),
       author="Wei, Jin-Mao and Yuan, Xiao-Jie and Hu, Qing-Hua and Wang, Shu-Qin", year="2010",
       title="A novel measure for evaluating classifiers", journal="Expert Systems with Applications",
       volume="37", number="5", pages="3799--3809", doi="10.1016/j.eswa.2009.11.040"),
    _w("pedregosa2011scikit", "article", (r"\bscikit-learn\b",),
       author="Pedregosa, Fabian and Varoquaux, Ga{\\\"e}l and Gramfort, Alexandre and Michel, Vincent and "
              "Thirion, Bertrand and Grisel, Olivier and others", year="2011",
       title="Scikit-learn: Machine Learning in Python", journal="Journal of Machine Learning Research",
       volume="12", pages="2825--2830"),
    # score-based measures (evalreport/measures/scores.py) and DeLong's test (evalreport/analyses/delong.py)
    _w("hanley1982meaning", "article", (r"\bHanley\b",),
       author="Hanley, James A. and McNeil, Barbara J.", year="1982",
       title="The meaning and use of the area under a receiver operating characteristic (ROC) curve",
       journal="Radiology", volume="143", number="1", pages="29--36", doi="10.1148/radiology.143.1.7063747"),
    _w("fawcett2006introduction", "article", (r"\bFawcett\b",),
       author="Fawcett, Tom", year="2006", title="An introduction to ROC analysis",
       journal="Pattern Recognition Letters", volume="27", number="8", pages="861--874",
       doi="10.1016/j.patrec.2005.10.010"),
    _w("hand2001simple", "article", (r"\bHand & Till\b",),
       author="Hand, David J. and Till, Robert J.", year="2001",
       title="A Simple Generalisation of the Area Under the ROC Curve for Multiple Class Classification Problems",
       journal="Machine Learning", volume="45", number="2", pages="171--186", doi="10.1023/A:1010920819831"),
    _w("davis2006relationship", "inproceedings", (r"\bDavis & Goadrich\b",),
       author="Davis, Jesse and Goadrich, Mark", year="2006",
       title="The Relationship Between Precision-Recall and ROC Curves",
       booktitle="Proceedings of the 23rd International Conference on Machine Learning (ICML)", pages="233--240",
       doi="10.1145/1143844.1143874"),
    _w("lipton2014optimal", "inproceedings", (r"\bLipton\b",),
       author="Lipton, Zachary C. and Elkan, Charles and Naryanaswamy, Balakrishnan", year="2014",
       title="Optimal Thresholding of Classifiers to Maximize F1 Measure",
       booktitle="Machine Learning and Knowledge Discovery in Databases (ECML PKDD 2014)", series="LNCS",
       volume="8725", pages="225--239", publisher="Springer", doi="10.1007/978-3-662-44851-9_15"),
    _w("brier1950verification", "article", (r"\bBrier 1950\b",),
       author="Brier, Glenn W.", year="1950", title="Verification of forecasts expressed in terms of probability",
       journal="Monthly Weather Review", volume="78", number="1", pages="1--3",
       doi="10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2"),
    _w("good1952rational", "article", (r"\bGood 1952\b",),
       author="Good, I. J.", year="1952", title="Rational Decisions",
       journal="Journal of the Royal Statistical Society: Series B", volume="14", number="1", pages="107--114",
       doi="10.1111/j.2517-6161.1952.tb00104.x"),
    _w("guo2017calibration", "inproceedings", (r"\bGuo et al\.? 2017\b",),
       author="Guo, Chuan and Pleiss, Geoff and Sun, Yu and Weinberger, Kilian Q.", year="2017",
       title="On Calibration of Modern Neural Networks",
       booktitle="Proceedings of the 34th International Conference on Machine Learning (ICML)", series="PMLR",
       volume="70", pages="1321--1330"),
    _w("naeini2015obtaining", "inproceedings", (r"\bNaeini\b",),
       author="Naeini, Mahdi Pakdaman and Cooper, Gregory F. and Hauskrecht, Milos", year="2015",
       title="Obtaining Well Calibrated Probabilities Using Bayesian Binning",
       booktitle="Proceedings of the Twenty-Ninth AAAI Conference on Artificial Intelligence", pages="2901--2907"),
    _w("manning2008introduction", "book", (r"\bManning, Raghavan\b",),
       author="Manning, Christopher D. and Raghavan, Prabhakar and Sch{\\\"u}tze, Hinrich", year="2008",
       title="Introduction to Information Retrieval", publisher="Cambridge University Press"),
    _w("delong1988comparing", "article", (r"\bDeLong\b",),
       author="DeLong, Elizabeth R. and DeLong, David M. and Clarke-Pearson, Daniel L.", year="1988",
       title="Comparing the Areas under Two or More Correlated Receiver Operating Characteristic Curves: A "
             "Nonparametric Approach", journal="Biometrics", volume="44", number="3", pages="837--845",
       doi="10.2307/2531595"),
    _w("sun2014fast", "article", (r"\bSun & Xu\b",),
       author="Sun, Xu and Xu, Weichao", year="2014",
       title="Fast Implementation of DeLong's Algorithm for Comparing the Areas Under Correlated Receiver "
             "Operating Characteristic Curves", journal="IEEE Signal Processing Letters", volume="21",
       number="11", pages="1389--1393", doi="10.1109/LSP.2014.2337313"),
    # example-based multi-label measures (evalreport/measures/multilabel.py)
    _w("tsoumakas2007multilabel", "article", (r"\bTsoumakas\b.*2007",),
       author="Tsoumakas, Grigorios and Katakis, Ioannis", year="2007",
       title="Multi-Label Classification: An Overview",
       journal="International Journal of Data Warehousing and Mining", volume="3", number="3", pages="1--13",
       doi="10.4018/jdwm.2007070101"),
    _w("godbole2004discriminative", "inproceedings", (r"\bGodbole\b.*2004",),
       author="Godbole, Shantanu and Sarawagi, Sunita", year="2004",
       title="Discriminative Methods for Multi-labeled Classification",
       booktitle="Advances in Knowledge Discovery and Data Mining (PAKDD 2004)", series="LNCS", volume="3056",
       pages="22--30", publisher="Springer", doi="10.1007/978-3-540-24775-3_5"),
    # shared tasks whose official measures the registry carries
    _w("mohammad2016semeval", "inproceedings", (r"\bSemEval-2016 Task 6\b", r"\bMohammad\b"),
       author="Mohammad, Saif and Kiritchenko, Svetlana and Sobhani, Parinaz and Zhu, Xiaodan and Cherry, Colin",
       year="2016", title="SemEval-2016 Task 6: Detecting Stance in Tweets",
       booktitle="Proceedings of the 10th International Workshop on Semantic Evaluation (SemEval-2016)",
       pages="31--41", publisher="Association for Computational Linguistics", doi="10.18653/v1/S16-1003"),
    _w("nakov2016semeval", "inproceedings", (r"\bSemEval-2016 Task 4\b", r"\bNakov\b"),
       author="Nakov, Preslav and Ritter, Alan and Rosenthal, Sara and Sebastiani, Fabrizio and Stoyanov, Veselin",
       year="2016", title="SemEval-2016 Task 4: Sentiment Analysis in Twitter",
       booktitle="Proceedings of the 10th International Workshop on Semantic Evaluation (SemEval-2016)",
       pages="1--18", publisher="Association for Computational Linguistics", doi="10.18653/v1/S16-1001"),
    _w("hendrickx2010semeval", "inproceedings", (r"\bSemEval-2010 Task 8\b", r"\bHendrickx\b"),
       author="Hendrickx, Iris and Kim, Su Nam and Kozareva, Zornitsa and Nakov, Preslav and "
              "{\\'O} S{\\'e}aghdha, Diarmuid and Pad{\\'o}, Sebastian and Pennacchiotti, Marco and "
              "Romano, Lorenza and Szpakowicz, Stan", year="2010",
       title="SemEval-2010 Task 8: Multi-Way Classification of Semantic Relations between Pairs of Nominals",
       booktitle="Proceedings of the 5th International Workshop on Semantic Evaluation", pages="33--38",
       publisher="Association for Computational Linguistics"),
    _w("pomerleau2017fnc", "misc", (r"\bFake News Challenge\b", r"\bFNC-1\b", r"\bPomerleau\b"),
       author="Pomerleau, Dean and Rao, Delip", year="2017",
       title="The Fake News Challenge: Exploring how artificial intelligence technologies could be leveraged "
             "to combat fake news (FNC-1)", howpublished="fakenewschallenge.org"),
    # methods: resampling, tests, corrections, rank comparisons, rounding
    _w("efron1993introduction", "book", (r"\bEfron\b",),
       author="Efron, Bradley and Tibshirani, Robert J.", year="1993", title="An Introduction to the Bootstrap",
       publisher="Chapman \\& Hall", address="New York", doi="10.1007/978-1-4899-4541-9"),
    _w("noreen1989computer", "book", (r"\bNoreen\b",),
       author="Noreen, Eric W.", year="1989",
       title="Computer-Intensive Methods for Testing Hypotheses: An Introduction", publisher="Wiley",
       address="New York"),
    _w("riezler2005pitfalls", "inproceedings", (r"\bRiezler\b",),
       author="Riezler, Stefan and Maxwell, John T.", year="2005",
       title="On Some Pitfalls in Automatic Evaluation and Significance Testing for MT",
       booktitle="Proceedings of the ACL Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine "
                 "Translation and/or Summarization", pages="57--64",
       publisher="Association for Computational Linguistics"),
    _w("mcnemar1947note", "article", (r"\bMcNemar\b",),
       author="McNemar, Quinn", year="1947",
       title="Note on the sampling error of the difference between correlated proportions or percentages",
       journal="Psychometrika", volume="12", number="2", pages="153--157", doi="10.1007/BF02295996"),
    _w("durkalski2003analysis", "article", (r"\bDurkalski\b",),
       author="Durkalski, Valerie L. and Palesch, Yuko Y. and Lipsitz, Stuart R. and Rust, Philip F.", year="2003",
       title="Analysis of clustered matched-pair data", journal="Statistics in Medicine", volume="22",
       number="15", pages="2417--2428", doi="10.1002/sim.1438"),
    _w("field2007bootstrapping", "article", (r"\bField\b.*\bWelsh\b",),
       author="Field, Christopher A. and Welsh, Alan H.", year="2007", title="Bootstrapping clustered data",
       journal="Journal of the Royal Statistical Society: Series B (Statistical Methodology)", volume="69",
       number="3", pages="369--390", doi="10.1111/j.1467-9868.2007.00593.x"),
    _w("holm1979simple", "article", (r"\bHolm\b",),
       author="Holm, Sture", year="1979", title="A Simple Sequentially Rejective Multiple Test Procedure",
       journal="Scandinavian Journal of Statistics", volume="6", number="2", pages="65--70"),
    _w("almohamad2022simultaneous", "article", (r"\bAl Mohamad\b",),
       author="Al Mohamad, Diaa and Goeman, Jelle J. and van Zwet, Erik W.", year="2022",
       title="Simultaneous Confidence Intervals for Ranks with Application to Ranking Institutions",
       journal="Biometrics", volume="78", number="1", pages="238--247", doi="10.1111/biom.13419"),
    _w("schuirmann1987comparison", "article", (r"\bSchuirmann\b",),
       author="Schuirmann, Donald J.", year="1987",
       title="A Comparison of the Two One-Sided Tests Procedure and the Power Approach for Assessing the "
             "Equivalence of Average Bioavailability",
       journal="Journal of Pharmacokinetics and Biopharmaceutics", volume="15", number="6", pages="657--680",
       doi="10.1007/BF01068419"),
    _w("connor1987sample", "article", (r"\bConnor\b",),
       author="Connor, Roger J.", year="1987",
       title="Sample Size for Testing Differences in Proportions for the Paired-Sample Design",
       journal="Biometrics", volume="43", number="1", pages="207--211", doi="10.2307/2531961"),
    _w("benjamini1995controlling", "article", (r"\bBenjamini\b",),
       author="Benjamini, Yoav and Hochberg, Yosef", year="1995",
       title="Controlling the False Discovery Rate: A Practical and Powerful Approach to Multiple Testing",
       journal="Journal of the Royal Statistical Society: Series B (Methodological)", volume="57", number="1",
       pages="289--300", doi="10.1111/j.2517-6161.1995.tb02031.x"),
    _w("piepho2004algorithm", "article", (r"\bPiepho\b",),
       author="Piepho, Hans-Peter", year="2004",
       title="An Algorithm for a Letter-Based Representation of All-Pairwise Comparisons",
       journal="Journal of Computational and Graphical Statistics", volume="13", number="2", pages="456--466",
       doi="10.1198/1061860043515"),
    _w("demsar2006statistical", "article", (r"\bDem(š|s)ar\b",),
       author="Dem{\\v{s}}ar, Janez", year="2006",
       title="Statistical Comparisons of Classifiers over Multiple Data Sets",
       journal="Journal of Machine Learning Research", volume="7", pages="1--30"),
    # methods of the benchmark report: the tests over several data sets (Demšar 2006) and consensus rankings
    _w("friedman1937use", "article", (r"\bFriedman 1937\b",),
       author="Friedman, Milton", year="1937",
       title="The Use of Ranks to Avoid the Assumption of Normality Implicit in the Analysis of Variance",
       journal="Journal of the American Statistical Association", volume="32", number="200", pages="675--701",
       doi="10.1080/01621459.1937.10503522"),
    _w("friedman1940comparison", "article", (r"\bFriedman 1940\b",),
       author="Friedman, Milton", year="1940",
       title="A Comparison of Alternative Tests of Significance for the Problem of m Rankings",
       journal="The Annals of Mathematical Statistics", volume="11", number="1", pages="86--92",
       doi="10.1214/aoms/1177731944"),
    _w("iman1980approximations", "article", (r"\bIman\b",),
       author="Iman, Ronald L. and Davenport, James M.", year="1980",
       title="Approximations of the Critical Region of the Friedman Statistic",
       journal="Communications in Statistics - Theory and Methods", volume="9", number="6", pages="571--595",
       doi="10.1080/03610928008827904"),
    _w("nemenyi1963distribution", "phdthesis", (r"\bNemenyi\b",),
       author="Nemenyi, Peter B.", year="1963", title="Distribution-free Multiple Comparisons",
       school="Princeton University"),
    _w("wilcoxon1945individual", "article", (r"\bWilcoxon\b",),
       author="Wilcoxon, Frank", year="1945", title="Individual Comparisons by Ranking Methods",
       journal="Biometrics Bulletin", volume="1", number="6", pages="80--83", doi="10.2307/3001968"),
    _w("kemeny1959mathematics", "article", (r"\bKemeny 1959\b",),
       author="Kemeny, John G.", year="1959", title="Mathematics without Numbers", journal="Daedalus",
       volume="88", number="4", pages="577--591"),
    _w("young1978consistent", "article", (r"\bYoung (and|&) Levenglick\b", r"\bYoung 1978\b"),
       author="Young, H. P. and Levenglick, A.", year="1978",
       title="A Consistent Extension of Condorcet's Election Principle",
       journal="SIAM Journal on Applied Mathematics", volume="35", number="2", pages="285--300",
       doi="10.1137/0135023"),
    _w("borda1781memoire", "article", (r"\bBorda\b",),
       author="Borda, Jean-Charles de", year="1781", title="M{\\'e}moire sur les {\\'e}lections au scrutin",
       journal="Histoire de l'Acad{\\'e}mie Royale des Sciences", pages="657--665",
       note="Published 1784"),
    _w("copeland1951reasonable", "misc", (r"\bCopeland\b",),
       author="Copeland, Arthur H.", year="1951", title="A ``Reasonable'' Social Welfare Function",
       howpublished="Seminar on Applications of Mathematics to the Social Sciences, University of Michigan "
                    "(mimeographed notes)"),
    _w("spearman1904proof", "article", (r"\bSpearman\b",),
       author="Spearman, Charles", year="1904", title="The Proof and Measurement of Association between Two Things",
       journal="The American Journal of Psychology", volume="15", number="1", pages="72--101",
       doi="10.2307/1412159"),
    _w("kendall1938new", "article", (r"\bKendall\b",),
       author="Kendall, Maurice G.", year="1938", title="A New Measure of Rank Correlation", journal="Biometrika",
       volume="30", number="1/2", pages="81--93", doi="10.1093/biomet/30.1-2.81"),
    # several runs per system: variance sources, the two-factor bootstrap, Almost Stochastic Order
    _w("bouthillier2021accounting", "inproceedings", (r"\bBouthillier\b",),
       author="Bouthillier, Xavier and Delaunay, Pierre and Bronzi, Mirko and Trofimov, Assya and Nichyporuk, "
              "Brennan and Szeto, Justin and Sepahvand, Naz and Raff, Edward and Madan, Kanika and Voleti, Vikram "
              "and Kahou, Samira Ebrahimi and Michalski, Vincent and Arbel, Tal and Pal, Chris and Varoquaux, "
              "Ga{\\\"e}l and Vincent, Pascal", year="2021",
       title="Accounting for Variance in Machine Learning Benchmarks",
       booktitle="Proceedings of Machine Learning and Systems 3 (MLSys 2021)", pages="747--769"),
    _w("owen2007pigeonhole", "article", (r"\bOwen\b",),
       author="Owen, Art B.", year="2007", title="The Pigeonhole Bootstrap", journal="The Annals of Applied Statistics",
       volume="1", number="2", pages="386--411", doi="10.1214/07-AOAS122"),
    _w("davison1997bootstrap", "book", (r"\bDavison\b",),
       author="Davison, Anthony C. and Hinkley, David V.", year="1997",
       title="Bootstrap Methods and Their Application", publisher="Cambridge University Press",
       address="Cambridge", doi="10.1017/CBO9780511802843"),
    _w("hesterberg2015what", "article", (r"\bHesterberg\b",),
       author="Hesterberg, Tim C.", year="2015",
       title="What Teachers Should Know About the Bootstrap: Resampling in the Undergraduate Statistics Curriculum",
       journal="The American Statistician", volume="69", number="4", pages="371--386",
       doi="10.1080/00031305.2015.1089789"),
    _w("satterthwaite1946approximate", "article", (r"\bSatterthwaite\b",),
       author="Satterthwaite, F. E.", year="1946", title="An Approximate Distribution of Estimates of Variance Components",
       journal="Biometrics Bulletin", volume="2", number="6", pages="110--114", doi="10.2307/3002019"),
    _w("welch1947generalization", "article", (r"\bWelch\b",),
       author="Welch, B. L.", year="1947",
       title="The Generalization of `Student's' Problem when Several Different Population Variances are Involved",
       journal="Biometrika", volume="34", number="1/2", pages="28--35", doi="10.1093/biomet/34.1-2.28"),
    _w("dror2019deep", "inproceedings", (r"\bDror\b",),
       author="Dror, Rotem and Shlomov, Segev and Reichart, Roi", year="2019",
       title="Deep Dominance -- How to Properly Compare Deep Neural Models",
       booktitle="Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics",
       pages="2773--2785", doi="10.18653/v1/P19-1266"),
    _w("delbarrio2018optimal", "incollection", (r"\bdel Barrio\b",),
       author="del Barrio, Eustasio and Cuesta-Albertos, Juan A. and Matr{\\'a}n, Carlos", year="2018",
       title="An Optimal Transportation Approach for Assessing Almost Stochastic Order",
       booktitle="The Mathematics of the Uncertain", publisher="Springer", address="Cham", pages="33--44",
       doi="10.1007/978-3-319-73848-2_3"),
    _w("jcgm2008gum", "misc", (r"\bGUM\b", r"\bJCGM\b"),
       author="{Joint Committee for Guides in Metrology}", year="2008",
       title="Evaluation of measurement data -- Guide to the expression of uncertainty in measurement",
       howpublished="JCGM 100:2008 (GUM 1995 with minor corrections)"),
)

_BY_KEY = {w.key: w for w in WORKS}
_COMPILED = tuple((w, tuple(re.compile(p) for p in w.patterns)) for w in WORKS)

#: What each method evalreport applies rests on: method name -> keys of :data:`WORKS`.
METHODS: dict[str, tuple[str, ...]] = {
    "bootstrap": ("efron1993introduction",),
    "randomization": ("noreen1989computer", "riezler2005pitfalls"),
    "mcnemar": ("mcnemar1947note",),
    "clustered_mcnemar": ("durkalski2003analysis",),
    "cluster_bootstrap": ("field2007bootstrapping",),
    "holm": ("holm1979simple",),
    "bh": ("benjamini1995controlling",),
    "letters": ("piepho2004algorithm",),
    "rank_intervals": ("almohamad2022simultaneous", "holm1979simple"),
    "equivalence": ("schuirmann1987comparison",),
    "plan": ("connor1987sample",),
    "calibration": ("opitz2022bias",),
    "crossval": ("forman2010apples",),
    "rank_correlation": ("spearman1904proof", "kendall1938new", "opitz2022bias"),
    "inconsistency": ("gosgens2021good",),
    "demsar": ("demsar2006statistical",),
    "friedman": ("friedman1937use", "friedman1940comparison"),
    "iman_davenport": ("iman1980approximations",),
    "nemenyi": ("nemenyi1963distribution",),
    "wilcoxon": ("wilcoxon1945individual",),
    "kemeny": ("kemeny1959mathematics", "young1978consistent"),
    "borda": ("borda1781memoire",),
    "copeland": ("copeland1951reasonable",),
    "rounding": ("jcgm2008gum",),
    "seeds": ("bouthillier2021accounting", "owen2007pigeonhole"),
    "seeds_few_runs": ("davison1997bootstrap", "hesterberg2015what"),
    "seeds_pair_test": ("satterthwaite1946approximate", "welch1947generalization"),
    "aso": ("dror2019deep", "delbarrio2018optimal"),
    "delong": ("delong1988comparing", "sun2014fast"),
}


def get_work(key: str) -> Work:
    """The work with BibTeX key ``key`` (KeyError names the known keys when there is none)."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"no work {key!r}; known: {', '.join(sorted(_BY_KEY))}") from None


def works_for_source(source: str) -> list[Work]:
    """The works a source string names, in the order of :data:`WORKS` (empty: it names none)."""
    text = str(source or "")
    return [w for w, pats in _COMPILED if any(p.search(text) for p in pats)]


def _surname(name: str) -> str:
    name = name.strip()
    surname = name.split(",")[0] if "," in name else name.split()[-1]
    # BibTeX accents as the reader sees them: G{\"o}sgens -> Gösgens
    surname = re.sub(r'\{\\"(\w)\}', lambda m: m.group(1).translate(str.maketrans("aouAOU", "äöüÄÖÜ")), surname)
    return surname.replace("{", "").replace("}", "")


def author_year(work: Work) -> str:
    """``Opitz (2022)``, ``Forman and Scholz (2010)``, ``Gösgens et al. (2021)`` from a work's fields."""
    authors = [a for a in re.split(r"\s+and\s+", work.fields.get("author", "")) if a.strip()]
    names = [_surname(a) for a in authors] or [work.fields.get("organization") or work.key]
    who = names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2 else f"{names[0]} et al."
    year = work.fields.get("year", "")
    return f"{who} ({year})" if year else who


def works_for_measures(measure_ids, *, conventions: bool = True) -> list[Work]:
    """The works behind the measures ``measure_ids`` (their sources and, with ``conventions``, the
    sources of their 0/0 conventions), each once, in the order of :data:`WORKS`."""
    from evalreport.measures import get

    keys: set[str] = set()
    for mid in measure_ids:
        m = get(str(mid))
        for text in (m.source, m.convention_source if conventions else ""):
            keys.update(w.key for w in works_for_source(text))
    return [w for w in WORKS if w.key in keys]


def works_for_methods(methods) -> list[Work]:
    """The works behind the named methods (keys of :data:`METHODS`), each once, in the order of :data:`WORKS`."""
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise KeyError(f"unknown method(s) {', '.join(unknown)}; known: {', '.join(METHODS)}")
    keys = {k for m in methods for k in METHODS[m]}
    return [w for w in WORKS if w.key in keys]


_FIELD_ORDER = ("author", "title", "booktitle", "journal", "volume", "number", "pages", "year", "publisher",
                "school", "address", "howpublished", "note", "doi")


def _field(value: str) -> str:
    """A BibTeX field value: braces are kept balanced, ``%`` would start a comment in the .bib."""
    depth = 0
    for ch in value:
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            raise ValueError(f"unbalanced braces in a BibTeX field: {value!r}")
    if depth:
        raise ValueError(f"unbalanced braces in a BibTeX field: {value!r}")
    return value.replace("%", r"\%")


def bibtex(works) -> str:
    """BibTeX entries of ``works`` (sorted by key, so the file is the same whatever order they come in).
    Titles are wrapped in double braces so that bibliography styles keep their capitals."""
    out = []
    for w in sorted(works, key=lambda w: w.key):
        lines = [f"@{w.kind}{{{w.key},"]
        for name in _FIELD_ORDER:
            if name in w.fields:
                value = _field(w.fields[name])
                value = f"{{{value}}}" if name == "title" else value
                lines.append(f"  {name} = {{{value}}},")
        lines.append("}")
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"
