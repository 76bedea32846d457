//! The umpire's calculator: `adjutant calc`. (in progress)
