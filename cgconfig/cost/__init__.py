"""What a plan costs at start-up: graph pool memory per rank and capture seconds, per phase.

* :mod:`.coefficients` reads the model's data (``coefficients.json`` beside this file, fitted
  by ``benchmarks/fit_cost.py``; a local file written by ``cgconfig calibrate`` wins);
* :mod:`.shape` reads the model facts the prediction uses from ``config.json``;
* :mod:`.predict` turns a phase's graphs into a prediction with a range and its facts;
* :mod:`.reserve` gives the engine's own reservation (SGLang's reserve, vLLM's estimator);
* :mod:`.plan_cost` builds the plan's ``cost`` section and the fit check against the GPU;
* :mod:`.fit` fits the coefficients; :mod:`.calibrate` updates the local file from a runtime
  ``capture_report()``; :mod:`.compare` sets a prediction beside a log's measurement.
"""
