//! Dice: a seeded ChaCha20 stream with a draw counter, and scripted dice. (in progress)
