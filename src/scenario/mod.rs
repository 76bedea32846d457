//! Scenario files. (in progress)
