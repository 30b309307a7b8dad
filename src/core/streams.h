/*
 * streams.h -- every random stream of grove, in one list.
 *
 * Pipeline position: core/ (the RNG: gv_rng_seed(rng, seed, STREAM, index) in core.h).  Random
 * numbers are derived from (seed, stream, index), never from thread timing, so a model depends
 * only on its seed and data, for any thread count (include/grove.h, "Training").  Each user
 * of randomness has its own stream id here; the comment says who draws from it and what the
 * index means.
 * The values are part of what a seed means: changing one changes the models a seed gives.
 */
#ifndef GV_STREAMS_H
#define GV_STREAMS_H

#include <stdint.h>

enum gv_stream {
    GV_STREAM_LEARNER = 1,        /* api/train.c: the trained learner (index 0); perceptron.c
                                     without a caller's stream (seed 0) */
    GV_STREAM_BOOST = 2,          /* boost.c: round t's resample and base learner */
    GV_STREAM_FILTER = 3,         /* filter.c: the example oracle and the learners */
    GV_STREAM_CONFIDENCE = 4,     /* confidence.c: 0 the shuffle, run + 1 each run */
    GV_STREAM_BAGGING = 21,       /* bagging.c: model t's rows, then its growth */
    GV_STREAM_OOB_PERMUTE = 22,   /* bagging.c: OOB permutation of feature f in model t */
    GV_STREAM_PERMUTE = 23,       /* importance.c: permutation importance of feature f */
    GV_STREAM_GBDT = 31,          /* gbdt.c: round * 4096 + j: j = 0 the row drawn when subsample
                                     drew none, 1 features, 2 + g tree g */
    GV_STREAM_GBDT_QUANT = 32,    /* gbdt.c's trees (learn/tree_session.c): quantized_bits'
                                     rounding of tree g of round t, rows 4096 b .. 4096 b + 4095:
                                     index (t * groups + g) << 24 | b */
    GV_STREAM_GBDT_ROWS = 33,     /* gbdt.c: subsample's draws of round t, global rows 4096 b ..
                                     4096 b + 4095 (one uniform each, in order): t << 32 | b */
    GV_STREAM_STACK = 41,         /* stacking.c: the folds, each member's fits */
    GV_STREAM_VOTING = 42,        /* stacking.c: the voting members */
    GV_STREAM_BIASVAR = 51,       /* eval/biasvar.c: the split, replicate r's draw */
    GV_STREAM_BIN = 0x62696e,     /* bin/bin.c ("bin"): the rows sampled for cut points */
    GV_STREAM_CASCADE_MINE = 0x6d696e65, /* vision/train.c ("mine") + stage: negatives mined */
    GV_STREAM_PERCEPTRON = 0x70657263    /* perceptron.c ("perc"): the visiting order */
};
/* vision/train_io.c ("valid"): the positives held out for validation (above an int's range). */
#define GV_STREAM_CASCADE_VALID UINT64_C(0x76616c6964)

#endif /* GV_STREAMS_H */
