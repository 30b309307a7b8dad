/*
 * help.c -- `grove help [params|algos|formats]`.  `grove help params --markdown` writes
 * docs/params.md: the parameter documentation is generated from the library's one table.
 */
#include "cli.h"

#include <string.h>

static const char help_usage[] =
    "usage: grove help [COMMAND | params [--markdown] | algos | formats]\n"
    "\n"
    "  grove help           the commands, one line each\n"
    "  grove help COMMAND   the command's usage and every option it takes (as COMMAND --help)\n"
    "  grove help params    every parameter (--set KEY=VALUE): kind, default, range, meaning,\n"
    "                       the algorithms it applies to;\n"
    "                       --markdown writes docs/params.md\n"
    "  grove help algos     the algorithms\n"
    "  grove help formats   the input and output formats\n";

static const char algos_text[] =
    "Algorithms (--algo NAME); formulas, parameters and references: docs/algorithms.md\n"
    "\n"
    "Base learners (each also usable as an ensemble's --base):\n"
    "  tree        CART decision tree (Breiman et al. 1984): binary splits on binned data;\n"
    "              criterion gini or entropy (classification) or variance (regression);\n"
    "              categorical features split by partitions; missing values take the better side.\n"
    "  id3         ID3 (Quinlan 1986): information gain, one child per category of a categorical\n"
    "              feature, binary thresholds for numeric ones; classification.\n"
    "  stump       decision stump: the best single split (a tree of depth 1); the default base.\n"
    "  perceptron  Rosenblatt's perceptron on standardized, one-hot features; multiclass;\n"
    "              perceptron.variant classic, averaged or pocket; hard votes.\n"
    "  logistic    L2-regularized logistic regression (binary or multinomial, L-BFGS), with\n"
    "              scikit-learn's C (logistic.C).\n"
    "  mlp         neural network, one hidden layer (mlp.hidden, relu|tanh), softmax or linear\n"
    "              output, weighted loss with L2 (mlp.alpha), minibatch Adam or SGD; seeded.\n"
    "Tree limits: max_depth, max_leaves, min_samples_leaf, min_samples_split, min_weight_leaf,\n"
    "min_gain; growth depthwise or bestfirst; max_features for random feature subsets per node.\n"
    "\n"
    "Ensembles: --base LEARNER (default stump; any algorithm above or below) and --rounds N.  The\n"
    "base learner's parameters are --set base.KEY=VALUE (e.g. --base tree --set base.max_depth=3);\n"
    "the top-level ones (max_depth=3) do not reach it.\n"
    "  adaboost          discrete AdaBoost (Freund & Schapire 1997), two classes; --log shows\n"
    "                    training error <= prod Z <= exp(-2 sum gamma^2).\n"
    "  adaboost.m1       AdaBoost.M1, K classes; needs each round's error below 1/2.\n"
    "  samme             SAMME (Zhu et al. 2009): K classes, alpha + ln(K-1); needs error\n"
    "                    below 1 - 1/K.\n"
    "  samme.r           SAMME.R: real-valued, from the base learner's class probabilities.\n"
    "  adaboost.m2       AdaBoost.M2: K classes, pseudo-loss and per-class plausibilities; boosts\n"
    "                    stumps on many classes where adaboost.m1 stalls.\n"
    "  adaboost.r2       AdaBoost.R2 (Drucker 1997): regression, weighted median of the members;\n"
    "                    boost.loss linear, square or exponential.\n"
    "  filter-boost      boosting by filtering: Schapire's (1990) recursive majority of three\n"
    "                    (filter.depth k: 3^k base learners); filter.oracle=deform draws fresh\n"
    "                    deformed images (image.*, deform.*); classification.\n"
    "  confidence-boost  boosting the confidence: k = ceil(log2(2/delta)) runs, the best on a\n"
    "                    held-out selection sample (confidence.epsilon, confidence.delta).\n"
    "AdaBoost family: boost.mode reweight|resample, boost.learning_rate, early_stopping_rounds\n"
    "with --valid; --log FILE.csv (per-round log), `grove margins`, `grove predict --rounds T`.\n"
    "  bagging           bootstrap replicates (bagging.replace, sample_fraction) of any base\n"
    "                    learner (default: unpruned tree), plurality/soft vote or mean; out-of-bag\n"
    "                    error and its curve (--log), oob_error/oob_n in `grove info`.\n"
    "  forest            random forest (Breiman 2001): bagged unpruned trees, max_features per node\n"
    "                    (default sqrt, regression 1/3); impurity and permutation importances\n"
    "                    (`grove importance`).\n"
    "  extra-trees       extremely randomized trees (Geurts et al. 2006): random thresholds.\n"
    "  gbdt              gradient boosting on histograms with second-order (Newton) leaves: objective\n"
    "                    squared|absolute|huber|logistic|softmax|exponential|poisson|tweedie|gamma|\n"
    "                    quantile, learning_rate, lambda, alpha, gamma, min_child_weight,\n"
    "                    subsample, colsample_*, early stopping.\n"
    "  stacking          stacked generalization: stack.learners (base.KEY for their parameters),\n"
    "                    stack.folds out-of-fold predictions, stack.meta (logistic; regression:\n"
    "                    non-negative least squares), stack.passthrough for the raw features.\n"
    "  voting            hard or soft weighted majority (voting.mode, voting.weights) of\n"
    "                    voting.learners.\n";

static const char formats_text[] =
    "Input formats (gzip-compressed files are read transparently):\n"
    "  CSV     a header row, then one row per example.  The label column is --label (name or\n"
    "          0-based index), default the column named 'label', else the first column.\n"
    "          RFC 4180 quoting, LF or CRLF, UTF-8 BOM.  Fields separated by ',', or by ';' or\n"
    "          tabs when the header holds more of those (--sep C to choose); a separator\n"
    "          ending the header (a,b,) is no column.  --decimal , reads 3,14 as 3.14.\n"
    "          Missing values: empty, NA, ?, NaN and\n"
    "          the infinities inf, -inf, infinity (at training and prediction alike).\n"
    "          A column with any non-numeric value is categorical, with a warning when it\n"
    "          also holds numbers (--set categorical=COLS, --set numeric=COLS to force).\n"
    "          Class labels may be strings or numbers.  --weight COL: sample weights.\n"
    "          At prediction the label column is optional ('?', NA, unseen classes: ignored).\n"
    "  LIBSVM  label idx:value ... with 1-based, increasing indices (features f1..fN), or\n"
    "          zero-based when a row starts at index 0 (scikit-learn's default; features\n"
    "          f0..); absent features are 0, or missing with --set libsvm_absent=missing.\n"
    "  -       standard input (CSV or LIBSVM, gzip'd or not) wherever DATA is expected.\n"
    "Errors name the place: FILE:LINE:COLUMN (column = 1-based field number for CSV).\n"
    "Models: JSON files, versioned and checksummed (docs/model-format.md).\n"
    "Predictions (grove predict): CSV with column 'label' and, with --proba, p_<class>.\n"
    "Images (grove detect, grove cascade): PGM, PNG, JPEG; cascades: OpenCV's Haar XML or grove's.\n"
    "Exported models (grove export --lang c): one C99 file, its header comment the manual.\n";

static void print_params(int markdown)
{
    size_t n = grove_params_count();
    if (markdown)
        printf("# grove parameters\n\nGenerated by `grove help params --markdown` from the "
               "library's parameter table (src/core/params_def.h); do not edit by hand.\n"
               "Set with `--set KEY=VALUE` on the command line, or `grove_params_set()` in C.\n\n"
               "`applies to`: the algorithms whose training reads the parameter (an ensemble's "
               "base learner reads its own as `base.KEY`); `grove info` shows a model those.\n\n"
               "| name | kind | default | allowed | applies to | description |\n"
               "|---|---|---|---|---|---|\n");
    else
        printf("Parameters (--set KEY=VALUE):\n");
    for (size_t i = 0; i < n; i++) {
        const char *name, *kind, *def, *allowed, *help;
        grove_params_describe(i, &name, &kind, &def, &allowed, &help);
        const char *applies = grove_params_applies_to(i);
        if (!strcmp(applies, "*")) applies = "every model";
        if (!strcmp(applies, "data")) applies = "reading data";
        if (markdown) {
            printf("| `%s` | %s | `%s` | ", name, kind, def);
            for (const char *c = allowed; *c; c++) {
                if (*c == '|') fputs("\\|", stdout);
                else putchar(*c);
            }
            fputs(" | ", stdout);
            for (const char *c = applies; *c; c++) {
                if (*c == '|') fputs(", ", stdout);
                else putchar(*c);
            }
            printf(" | %s |\n", help);
        } else {
            printf("  %-18s %-6s default %-10s %s\n  %-18s %s\n  %-18s applies to: %s\n", name,
                   kind, *def ? def : "''", allowed, "", help, "", applies);
        }
    }
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    if (cli_is_help(argv[1])) {
        fputs(help_usage, stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "params")) {
        int markdown = argc > 2 && !strcmp(argv[2], "--markdown");
        if (argc > 2 && !markdown) {
            cli_error("help params: unknown option '%s'", argv[2]);
            return EXIT_USAGE;
        }
        print_params(markdown);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "algos")) {
        fputs(algos_text, stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "formats")) {
        fputs(formats_text, stdout);
        return EXIT_OK;
    }
    int rc = cli_command_help(argv[1]);
    if (rc >= 0) return rc;
    cli_error("help: unknown topic '%s' (a command, params, algos, formats)", argv[1]);
    return EXIT_USAGE;
}
