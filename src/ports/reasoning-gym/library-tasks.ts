// Every task name reasoning-gym 0.1.19 to 0.1.25 registers (`reasoning_gym.factory.DATASETS`), so an unsupported name can
// be told apart from a misspelt one.
export const LIBRARY_TASKS: ReadonlySet<string> = new Set([
  // algebra
  "complex_arithmetic", "intermediate_integration", "polynomial_equations", "polynomial_multiplication", "simple_equations", "simple_integration",
  // algorithmic
  "ab", "base_conversion", "binary_alternation", "binary_matrix", "caesar_cipher", "count_primes", "cryptarithm", "game_of_life",
  "game_of_life_halting", "graph_color", "group_anagrams", "isomorphic_strings", "jugs", "letter_counting", "letter_jumble",
  "manipulate_matrix", "number_filtering", "number_sorting", "palindrome_generation", "palindrome_partitioning", "pool_matrix",
  "ransom_note", "rotate_matrix", "rotten_oranges", "sentence_reordering", "spell_backward", "spiral_matrix", "string_insertion",
  "string_manipulation", "string_splitting", "string_synthesis", "word_ladder", "word_sequence_reversal", "word_sorting",
  // arc
  "arc_1d", "arc_agi", "rearc",
  // arithmetic
  "basic_arithmetic", "bitwise_arithmetic", "calendar_arithmetic", "chain_sum", "count_bits", "decimal_arithmetic", "decimal_chain_sum",
  "dice", "fraction_simplification", "gcd", "gsm_symbolic", "lcm", "leg_counting", "number_format", "power_function",
  "prime_factorization", "products", "time_intervals",
  // code
  "bf", "codeio",
  // cognition
  "color_cube_rotation", "figlet_font", "modulo_grid", "needle_haystack", "number_sequence", "rectangle_count", "rubiks_cube",
  // games
  "boxnet", "countdown", "emoji_mystery", "futoshiki", "kakurasu", "knight_swap", "mahjong_puzzle", "maze", "mini_sudoku", "n_queens",
  "puzzle24", "rush_hour", "sokoban", "sudoku", "survo", "tower_of_hanoi", "tsumego",
  // geometry
  "advanced_geometry", "simple_geometry",
  // graphs
  "course_schedule", "family_relationships", "largest_island", "path_star", "quantum_lock", "shortest_path",
  // induction
  "acre", "list_functions",
  // logic
  "aiw", "circuit_logic", "knights_knaves", "propositional_logic", "self_reference", "syllogism", "zebra_puzzles",
  // probability
  "coin_flip",
  // a mixture of the above, scored by each item's own task
  "composite",
]);
