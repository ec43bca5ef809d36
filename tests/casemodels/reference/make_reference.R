# Reference numbers for the case-characteristics models (contract
# shared/reference/case-models.md), computed with R's lme4 at default settings.
#
#   Rscript tests/casemodels/reference/make_reference.R
#
# For every data set below it writes, into tests/casemodels/reference/<name>/:
#   results.csv, metadata.csv, spec.json  - the inputs of `manage.py casemodel`
#   lme4.json                             - glmer()/lmer() estimates on them
# The data are simulated here with known effects (set.seed), and the contract's
# rules (failure threshold, missing results, empty cells, reference levels) are
# applied in R independently of the Python implementation. The test suite only
# reads the stored files; it never needs R.

suppressPackageStartupMessages({
  library(lme4)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = FALSE)
script <- sub("^--file=", "", args[grep("^--file=", args)])
out_root <- if (length(script)) dirname(normalizePath(script)) else "."

write_csv <- function(df, path) {
  write.csv(df, path, row.names = FALSE, na = "", quote = TRUE)
}

simulate_cases <- function(n_cases, n_patients, prefix = "c") {
  data.frame(
    case = sprintf("%s%04d", prefix, seq_len(n_cases)),
    patient = sprintf("p%03d", sample.int(n_patients, n_cases, replace = TRUE)),
    stringsAsFactors = FALSE
  )
}

# A DSC value that is below 0.5 exactly when `fail` is TRUE.
dsc_from_failure <- function(fail) {
  ifelse(fail, round(runif(length(fail), 0.05, 0.49), 4),
         round(runif(length(fail), 0.51, 0.97), 4))
}

# ---- the contract's rules, in R ------------------------------------------

typed_column <- function(x, reference = NULL) {
  present <- x[!is.na(x) & x != ""]
  low <- tolower(present)
  if (all(low %in% c("0", "1")) || all(low %in% c("true", "false"))) {
    out <- rep(NA_real_, length(x))
    ok <- !is.na(x) & x != ""
    out[ok] <- as.numeric(tolower(x[ok]) %in% c("1", "true"))
    return(out)
  }
  num <- suppressWarnings(as.numeric(present))
  if (!anyNA(num)) {
    out <- rep(NA_real_, length(x))
    ok <- !is.na(x) & x != ""
    out[ok] <- as.numeric(x[ok])
    return(out)
  }
  levels <- sort(unique(present), method = "radix")
  if (!is.null(reference)) levels <- c(reference, setdiff(levels, reference))
  f <- factor(ifelse(x == "", NA, x), levels = levels)
  f
}

model_frame <- function(results, metadata, spec) {
  rows <- results[results$metric == spec$metric, ]
  cases <- unique(rows$case)
  algorithms <- spec$algorithms
  grid <- expand.grid(case = cases, algorithm = algorithms,
                      stringsAsFactors = FALSE)
  grid <- merge(grid, rows[, c("case", "algorithm", "value")],
                by = c("case", "algorithm"), all.x = TRUE)
  value <- suppressWarnings(as.numeric(grid$value))
  if (spec$outcome$type == "failure") {
    grid$y <- as.numeric(is.na(value) | value < spec$outcome$below)
  } else {
    grid$y <- value
  }
  columns <- c(spec$characteristic_columns, spec$groups)
  meta <- metadata[, c("case", columns)]
  df <- merge(grid, meta, by = "case")  # drops cases without metadata
  for (col in spec$characteristic_columns) {
    df[[col]] <- typed_column(df[[col]], spec$references[[col]])
  }
  for (g in spec$groups) df[[g]] <- ifelse(df[[g]] == "", NA, df[[g]])
  df <- df[complete.cases(df[, c("y", columns)]), ]
  df[order(df$algorithm, df$case), ]
}

fit_one <- function(df, spec, global) {
  rhs <- c(spec$characteristic_columns, sprintf("(1|%s)", spec$groups))
  if (global) rhs <- c(rhs, "(1|algorithm)")
  form <- as.formula(paste("y ~", paste(rhs, collapse = " + ")))
  fit <- if (spec$outcome$type == "failure") {
    glmer(form, data = df, family = binomial)
  } else {
    lmer(form, data = df, REML = TRUE)
  }
  beta <- fixef(fit)
  se <- sqrt(diag(as.matrix(vcov(fit))))
  z <- qnorm(1 - 0.05 / 2)
  vc <- as.data.frame(VarCorr(fit))
  random <- setNames(as.list(vc$vcov[vc$grp != "Residual"]),
                     vc$grp[vc$grp != "Residual"])
  n_groups <- as.list(ngrps(fit))
  out <- list(
    scope = if (global) "global" else "algorithm",
    algorithm = if (global) NULL else unique(df$algorithm),
    n_obs = nobs(fit),
    n_groups = n_groups,
    fixed = lapply(seq_along(beta), function(i) list(
      term = names(beta)[i], estimate = unname(beta[i]), se = unname(se[i]),
      ci_low = unname(beta[i] - z * se[i]), ci_high = unname(beta[i] + z * se[i]))),
    random = random,
    singular = isSingular(fit),
    messages = as.list(fit@optinfo$conv$lme4$messages)
  )
  if (spec$outcome$type == "value") out$residual_variance <- sigma(fit)^2
  out
}

make_reference <- function(name, results, metadata, spec, r_spec) {
  dir <- file.path(out_root, name)
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  write_csv(results, file.path(dir, "results.csv"))
  write_csv(metadata, file.path(dir, "metadata.csv"))
  writeLines(toJSON(spec, auto_unbox = TRUE, pretty = TRUE),
             file.path(dir, "spec.json"))
  results <- read.csv(file.path(dir, "results.csv"), colClasses = "character")
  metadata <- read.csv(file.path(dir, "metadata.csv"), colClasses = "character")
  df <- model_frame(results, metadata, r_spec)
  models <- list(fit_one(df, r_spec, TRUE))
  for (a in r_spec$algorithms) {
    models[[length(models) + 1]] <- fit_one(df[df$algorithm == a, ], r_spec, FALSE)
  }
  reference <- list(
    lme4 = as.character(packageVersion("lme4")),
    r = R.version.string,
    n_rows_modelled = nrow(df),
    models = models
  )
  writeLines(toJSON(reference, auto_unbox = TRUE, pretty = TRUE, digits = NA,
                    null = "null"),
             file.path(dir, "lme4.json"))
  cat(name, ": ", nrow(df), " rows\n", sep = "")
}

results_table <- function(cases, algorithms, values, metric = "DSC",
                          task = "Segmentation") {
  data.frame(task = task, case = rep(cases$case, times = length(algorithms)),
             algorithm = rep(algorithms, each = nrow(cases)), metric = metric,
             value = values, stringsAsFactors = FALSE)
}

# ---- 1. binomial, patient and algorithm intercepts ------------------------
set.seed(20240601)
algorithms <- c("alpha", "bravo", "charlie", "delta", "echo", "foxtrot")
cases <- simulate_cases(300, 50)
blur <- round(runif(300), 3)
occlusion <- rbinom(300, 1, 0.3)
size <- sample(c("large", "medium", "small"), 300, replace = TRUE)
u_patient <- rnorm(50, 0, 1.0)
names(u_patient) <- sprintf("p%03d", 1:50)
u_alg <- rnorm(6, 0, 0.5)
eta <- outer(-1.2 + 1.5 * blur + 1.0 * occlusion +
               0.8 * (size == "small") + 0.3 * (size == "medium") +
               u_patient[cases$patient], u_alg, "+")
fail <- runif(length(eta)) < plogis(eta)
results <- results_table(cases, algorithms, dsc_from_failure(as.vector(fail)))
metadata <- data.frame(case = cases$case, blur = blur, occlusion = occlusion,
                       size = size, patient = cases$patient)
spec <- list(task = "Segmentation", metric = "DSC",
             outcome = list(type = "failure", below = 0.5),
             characteristics = list("blur", "occlusion",
                                    list(column = "size", reference = "large")),
             groups = list("patient"), algorithms = "all", per_algorithm = TRUE,
             missing = "failure", alpha = 0.05)
make_reference("binomial_patient", results, metadata, spec, list(
  metric = "DSC", outcome = list(type = "failure", below = 0.5),
  characteristic_columns = c("blur", "occlusion", "size"),
  references = list(size = "large"), groups = "patient",
  algorithms = algorithms))

# ---- 2. binomial with missing results and empty metadata cells -------------
set.seed(20240602)
algorithms <- c("north", "east", "south", "west")
cases <- simulate_cases(260, 40)
blur <- round(runif(260), 3)
occluded <- sample(c("true", "false"), 260, replace = TRUE, prob = c(0.35, 0.65))
u_patient <- rnorm(40, 0, 0.9)
names(u_patient) <- sprintf("p%03d", 1:40)
u_alg <- c(-0.4, 0, 0.3, 0.6)
eta <- outer(-1.0 + 2.0 * blur + 0.9 * (occluded == "true") +
               u_patient[cases$patient], u_alg, "+")
fail <- runif(length(eta)) < plogis(eta)
results <- results_table(cases, algorithms, dsc_from_failure(as.vector(fail)))
results$value[sample.int(nrow(results), 40)] <- ""   # delivered no result
results <- results[-sample.int(nrow(results), 25), ]  # rows absent altogether
metadata <- data.frame(case = cases$case, blur = as.character(blur),
                       occluded = occluded, patient = cases$patient)
metadata$blur[sample.int(260, 12)] <- ""              # characteristic unknown
metadata <- metadata[-c(5, 17), ]                     # cases without metadata
metadata <- rbind(metadata, data.frame(case = "x9999", blur = "0.5",
                                       occluded = "false", patient = "p001"))
spec <- list(metric = "DSC", outcome = list(type = "failure", below = 0.5),
             characteristics = list("blur", "occluded"), groups = list("patient"),
             algorithms = algorithms, per_algorithm = TRUE, missing = "failure")
make_reference("binomial_missing", results, metadata, spec, list(
  metric = "DSC", outcome = list(type = "failure", below = 0.5),
  characteristic_columns = c("blur", "occluded"), references = list(),
  groups = "patient", algorithms = algorithms))

# ---- 3. binomial, near-separation (smoke almost always fails) --------------
set.seed(20240603)
algorithms <- c("one", "two", "three")
repeat {
  cases <- simulate_cases(400, 40)
  smoke <- rbinom(400, 1, 0.06)
  area <- round(rnorm(400), 3)
  u_patient <- rnorm(40, 0, 0.8)
  names(u_patient) <- sprintf("p%03d", 1:40)
  eta <- outer(-0.8 + 4.0 * smoke - 0.5 * area + u_patient[cases$patient],
               c(-0.3, 0, 0.3), "+")
  fail <- runif(length(eta)) < plogis(eta)
  # near, not complete, separation: each algorithm succeeds on 1-2 smoke cases
  successes <- colSums(!fail[smoke == 1, , drop = FALSE])
  if (all(successes >= 1 & successes <= 2)) break
}
results <- results_table(cases, algorithms, dsc_from_failure(as.vector(fail)))
metadata <- data.frame(case = cases$case, smoke = smoke, area = area,
                       patient = cases$patient)
spec <- list(metric = "DSC", outcome = list(type = "failure", below = 0.5),
             characteristics = list("smoke", "area"), groups = list("patient"),
             algorithms = "all", per_algorithm = TRUE)
make_reference("binomial_near_separation", results, metadata, spec, list(
  metric = "DSC", outcome = list(type = "failure", below = 0.5),
  characteristic_columns = c("smoke", "area"), references = list(),
  groups = "patient", algorithms = sort(algorithms, method = "radix")))

# ---- 4. linear, patients nested in hospitals, missing values dropped -------
set.seed(20240604)
algorithms <- c("ant", "bee", "cat", "dog", "eel")
hospital_of <- sprintf("h%d", rep(1:8, each = 5))
patients <- sprintf("h%d-p%02d", rep(1:8, each = 5), 1:40)
pick <- sample.int(40, 300, replace = TRUE)
cases <- data.frame(case = sprintf("c%04d", 1:300), patient = patients[pick],
                    hospital = hospital_of[pick], stringsAsFactors = FALSE)
blur <- round(runif(300), 3)
size <- sample(c("large", "medium", "small"), 300, replace = TRUE)
area <- round(rnorm(300, 10, 3), 2)
u_h <- rnorm(8, 0, 0.1); names(u_h) <- sprintf("h%d", 1:8)
u_p <- rnorm(40, 0, 0.06); names(u_p) <- patients
u_a <- rnorm(5, 0, 0.04)
mu <- outer(0.85 - 0.12 * blur - 0.05 * (size == "small") + 0.02 * (size == "medium")
            + 0.004 * area + u_h[cases$hospital] + u_p[cases$patient], u_a, "+")
value <- round(as.vector(mu) + rnorm(length(mu), 0, 0.08), 5)
results <- results_table(cases, algorithms, value)
results$value[sample.int(nrow(results), 30)] <- ""
metadata <- data.frame(case = cases$case, blur = blur, size = size, area = area,
                       hospital = cases$hospital, patient = cases$patient)
metadata$size[sample.int(300, 8)] <- ""
spec <- list(metric = "DSC", outcome = list(type = "value"),
             characteristics = list("blur", "size", "area"),
             groups = list("hospital", "patient"), algorithms = "all",
             per_algorithm = TRUE, missing = "drop")
make_reference("linear_nested", results, metadata, spec, list(
  metric = "DSC", outcome = list(type = "value"),
  characteristic_columns = c("blur", "size", "area"), references = list(),
  groups = c("hospital", "patient"),
  algorithms = sort(algorithms, method = "radix")))

# ---- 5. linear, patient crossed with scanner -------------------------------
set.seed(20240605)
algorithms <- c("k1", "k2", "k3", "k4")
cases <- simulate_cases(200, 25)
cases$scanner <- sample(c("s_a", "s_b", "s_c", "s_d"), 200, replace = TRUE)
noise <- runif(200, 0, 2)
u_p <- rnorm(25, 0, 3); names(u_p) <- sprintf("p%03d", 1:25)
u_s <- c(s_a = -2, s_b = 0.5, s_c = 1, s_d = 2.5)
mu <- outer(20 + 1.5 * noise + u_p[cases$patient] + u_s[cases$scanner],
            c(0, 1, -1, 2), "+")
value <- round(as.vector(mu) + rnorm(length(mu), 0, 2), 4)
results <- results_table(cases, algorithms, value, metric = "HD95")
metadata <- data.frame(case = cases$case, noise = round(noise, 3),
                       scanner = cases$scanner, patient = cases$patient)
spec <- list(metric = "HD95", outcome = list(type = "value"),
             characteristics = list("noise"), groups = list("patient", "scanner"),
             algorithms = "all", per_algorithm = TRUE, missing = "drop")
make_reference("linear_crossed", results, metadata, spec, list(
  metric = "HD95", outcome = list(type = "value"),
  characteristic_columns = c("noise"), references = list(),
  groups = c("patient", "scanner"),
  algorithms = sort(algorithms, method = "radix")))
