"""Units by name across every source (rules/, the indexed catalogues, army lists): the layer above the
sources, below the questions that use units."""
