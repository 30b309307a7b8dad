# ranger, the user's way: one process trains and saves (saveRDS), another loads, predicts class
# probabilities and writes them to CSV (bench/matrix/run.sh).
# usage: Rscript ranger.R train TRAIN.csv[.gz] MODEL.rds TREES THREADS
#        Rscript ranger.R predict MODEL.rds TEST.csv[.gz] OUT.csv THREADS
# Prints the seconds of the fit, or of predict + write.  Default settings (unpruned trees,
# mtry = floor(sqrt(p)), bootstrap), probability = TRUE so that it writes probabilities.
suppressMessages(library(ranger))
a <- commandArgs(trailingOnly = TRUE)
if (a[1] == "train") {
  tr <- read.csv(a[2]); names(tr)[1] <- "label"; tr$label <- factor(tr$label)
  t0 <- Sys.time()
  m <- ranger(label ~ ., data = tr, num.trees = as.integer(a[4]), num.threads = as.integer(a[5]),
              probability = TRUE, seed = 1, verbose = FALSE)
  fit <- as.numeric(Sys.time() - t0, units = "secs")
  saveRDS(m, a[3])
  cat(sprintf("%.3f\n", fit))
} else {
  m <- readRDS(a[2]); te <- read.csv(a[3]); names(te)[1] <- "label"
  t0 <- Sys.time()
  p <- predict(m, te, num.threads = as.integer(a[5]))$predictions
  out <- data.frame(label = colnames(p)[max.col(p, ties.method = "first")])
  for (k in seq_len(ncol(p))) out[[paste0("p_", colnames(p)[k])]] <- p[, k]
  write.csv(out, a[4], row.names = FALSE, quote = FALSE)
  cat(sprintf("%.3f\n", as.numeric(Sys.time() - t0, units = "secs")))
}
