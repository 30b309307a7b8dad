# ranger (num.threads = 2, 100 trees) on grove's benchmark files.
# usage: Rscript ranger_forest.R TRAIN.csv[.gz] TEST.csv[.gz] TREES
# Prints one line: load_s train_s accuracy
suppressMessages(library(ranger))
a <- commandArgs(trailingOnly = TRUE)
t0 <- Sys.time()
tr <- read.csv(a[1]); te <- read.csv(a[2])
names(tr)[1] <- "label"; names(te)[1] <- "label"
tr$label <- factor(tr$label); te$label <- factor(te$label, levels = levels(tr$label))
t1 <- Sys.time()
m <- ranger(label ~ ., data = tr, num.trees = as.integer(a[3]), num.threads = 2, seed = 1,
            verbose = FALSE)
t2 <- Sys.time()
p <- predict(m, te, num.threads = 2)$predictions
cat(sprintf("%.3f %.3f %.4f\n", as.numeric(t1 - t0, units = "secs"),
            as.numeric(t2 - t1, units = "secs"), mean(p == te$label)))
