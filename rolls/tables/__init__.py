"""The table side of each dice system: one package per system (``rolls/tables/<slug>/``)
holding its adapter (a ``base.TableAdapter``), its forms and its templates. ``rolls.registry``
pairs each with its rules engine."""
