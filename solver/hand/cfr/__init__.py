"""The CFR family on the hand (CFR+, discounted, predictive): the iterations (`iterations`),
the flat arrays they run on (`layout`) and the C kernel that runs them (`kernel`, `_kernel.c`)."""
