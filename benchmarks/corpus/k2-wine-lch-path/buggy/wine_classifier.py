import numpy as np
import matplotlib.pyplot as plt
from sklearn.datasets import load_wine
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler
from keras.models import Sequential
from keras.layers import Dense, Activation
from keras.utils import to_categorical


def get_data():
    wine = load_wine()
    x = MinMaxScaler().fit_transform(wine.data)
    y = to_categorical(wine.target, num_classes=3)
    return train_test_split(x, y, test_size=0.3, random_state=1)


def make_model(hidden=64):
    model = Sequential()
    model.add(Dense(hidden, input_shape=(13,), kernel_initializer='he_normal'))
    model.add(Activation('relu'))
    model.add(Dense(hidden, kernel_initializer='he_normal'))
    model.add(Activation('relu'))
    model.add(Dense(3))
    model.add(Activation('softmax'))
    model.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
    return model


def plot_history(history):
    plt.plot(history.history['accuracy'], label='train')
    plt.plot(history.history['val_accuracy'], label='validation')
    plt.legend()
    plt.savefig('plot.png')


if __name__ == '__main__':
    x_train, x_test, y_train, y_test = get_data()
    model = make_model()
    history = model.fit(x_train, y_train, epochs=100, batch_size=8, validation_split=0.1, verbose=0)
    plot_history(history)
    print(model.evaluate(x_test, y_test, verbose=0))
