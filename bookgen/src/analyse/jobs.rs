//! The job scripts of `bookgen analyse --plan`: a Makefile and a Slurm
//! script that run an analysis as shards ([`super::Shard`]) and a merge,
//! each run with the same analysis options.

use std::path::Path;

/// A Makefile analysing `book` in `shards` jobs and a merge: one target a
/// shard (a stamp file written when its `bookgen analyse --shard` ends
/// well), then the analysis itself, made by a run without a shard that
/// merges the shards' journals, grows the book and writes it. `args` are
/// the analysis options every run takes (budget, net, growth); `make -j N`
/// runs N shards at once. BOOKGEN, BOOK, OUT and ARGS can be overridden.
pub fn makefile(book: &Path, output: &Path, shards: u32, args: &str) -> String {
    let stamp = |i: u32| format!("$(OUT).shard-{i}-of-{shards}.done");
    let stamps: Vec<String> = (0..shards).map(stamp).collect();
    let mut s = format!(
        "# The analysis of a book in {shards} shards and a merge: make -j N -f THIS_FILE\n\
         BOOKGEN ?= bookgen\nBOOK ?= {book}\nOUT ?= {output}\nARGS ?= {args}\n\n\
         .PHONY: all\nall: $(OUT)\n\n\
         $(OUT): {stamps}\n\t$(BOOKGEN) analyse -q $(ARGS) -o $(OUT) $(BOOK)\n",
        book = book.display(),
        output = output.display(),
        stamps = stamps.join(" "),
    );
    for i in 0..shards {
        s.push_str(&format!(
            "\n{}:\n\t$(BOOKGEN) analyse -q $(ARGS) --shard {i}/{shards} -o $(OUT) $(BOOK) && touch $@\n",
            stamp(i)
        ));
    }
    s
}

/// A shell script submitting the same to Slurm: a job array of the
/// shards, then the merging run once every shard succeeded (`afterok`).
/// BOOKGEN, BOOK, OUT, ARGS and CPUS can be set in the environment.
pub fn slurm(book: &Path, output: &Path, shards: u32, args: &str) -> String {
    format!(
        "#!/bin/sh\n\
         # The analysis of a book in {shards} shards (a Slurm job array) and a merge.\n\
         set -eu\n\
         BOOKGEN=${{BOOKGEN:-bookgen}}\nBOOK=${{BOOK:-{book}}}\nOUT=${{OUT:-{output}}}\n\
         ARGS=${{ARGS:-{args}}}\nCPUS=${{CPUS:-2}}\n\
         shards=$(sbatch --parsable --job-name=book-shards --array=0-{last} --cpus-per-task=\"$CPUS\" \\\n  \
         --wrap=\"exec $BOOKGEN analyse -q $ARGS --threads $CPUS --shard \\$SLURM_ARRAY_TASK_ID/{shards} -o $OUT $BOOK\")\n\
         merge=$(sbatch --parsable --job-name=book-merge --cpus-per-task=\"$CPUS\" \
         --dependency=afterok:${{shards%%;*}} \\\n  \
         --wrap=\"exec $BOOKGEN analyse -q $ARGS --threads $CPUS -o $OUT $BOOK\")\n\
         echo \"submitted: shards ${{shards%%;*}}, merge ${{merge%%;*}}\"\n",
        book = book.display(),
        output = output.display(),
        last = shards.saturating_sub(1),
    )
}
