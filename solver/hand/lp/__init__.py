"""Linear programming over the hand's sequence form: the plain LP (`sequence_form`), its warm
starts (`warm`), the LP on a restricted tree grown by best responses (`restricted`) and the LP
with trembles (`perturbed`), all through scipy's or highspy's HiGHS."""
