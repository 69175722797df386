set terminal pngcairo size 840,400 font 'sans,9'
set output 'tps-select-only.png'
set datafile missing 'NaN'
set multiplot layout 1,2 title "select-only: tps per round (round 0 = warm-up, discarded)"
set xlabel 'round'
set ylabel 'tps'
set grid
set key bottom right
set xrange [-0.5:10.5]
set xtics 1
set yrange [0:*]
set title 'clients = 2'
plot 'tps-select-only.dat' index 0 using 1:2 with linespoints pt 7 title "A stock", '' index 0 using 1:3 with linespoints pt 5 title "B patched:auto"
set title 'clients = 16'
plot 'tps-select-only.dat' index 1 using 1:2 with linespoints pt 7 title "A stock", '' index 1 using 1:3 with linespoints pt 5 title "B patched:auto"
unset multiplot
