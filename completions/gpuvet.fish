# gpuvet.fish: fish completion for gpuvet, installed as
# $PREFIX/share/fish/vendor_completions.d/gpuvet.fish. What to offer comes from the engine shared
# with bash and zsh (completions/gpuvet-complete.sh, installed as $PREFIX/lib/gpuvet/complete.sh),
# which asks the gpuvet being completed.

function __gpuvet_complete
    set -l words (commandline -opc) (commandline -ct)
    set -l bin (command -s -- $words[1])
    or set bin (command -s gpuvet)
    set -l dir (string replace -r '/[^/]*$' '' -- "$bin")
    set -l engine
    for f in "$GPUVET_COMPLETE" "$dir/../lib/gpuvet/complete.sh" "$dir/completions/gpuvet-complete.sh"
        if test -n "$f" -a -f "$f"
            set engine $f
            break
        end
    end
    test -n "$engine"; or return
    set -l out (sh $engine (math (count $words) - 1) $words)
    set -l rc $status
    if test $rc -eq 2
        __fish_complete_path (commandline -ct)
    else if test $rc -eq 0
        printf '%s\n' $out
    end
end

complete -c gpuvet -f -a '(__gpuvet_complete)'
