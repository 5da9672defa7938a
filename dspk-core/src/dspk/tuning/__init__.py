"""Kernel tuning: the on-disk cache (:mod:`.store`) and the variant choice (:mod:`.tuner`)."""
